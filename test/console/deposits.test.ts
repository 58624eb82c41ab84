import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { type DepositFixture, depositFixture, depositFollower } from '../deposit/support.ts';
import { launch, noBrowser } from '../hosted/browser.ts';
import { until } from '../payout/support.ts';
import { axe, consoleRoutes, signIn } from './support.ts';

/**
 * Held sweeps in Chromium against a stack that takes standing deposits: a parked forwarder holding
 * a real credited deposit is retried from the console and then swept by the worker; a read-scoped
 * token sees Retry disabled and the API refuses it. The deposits view then shows the credit, its fee
 * and its sweep, and the player's issued address.
 */

let f: DepositFixture;
let browser: Browser;
let worker: Worker | undefined;
let mining: Promise<void> | undefined;
let stopped = false;
beforeAll(async () => {
  f = await depositFixture({ pages: consoleRoutes });
  if (!noBrowser) browser = await launch();
}, 120_000);
afterAll(async () => {
  stopped = true;
  await mining;
  await worker?.stop();
  await browser?.close();
  await f?.close();
});

const depositOf = async (playerId: string) => {
  const [row] = await f.t.app
    .fork()
    .execute<{ status: string; swept_at: Date | null; swept_by: string | null }[]>(
      `select status, swept_at, swept_by from deposits where player_id = ?`,
      [playerId],
    );
  return row;
};

describe.skipIf(noBrowser)('held sweeps in the console', () => {
  it('a parked forwarder is retried from the console and then swept; a read token cannot retry', async () => {
    const forwarder = (await f.address('held-1')).toLowerCase();
    await f.send('USDT', forwarder, '4');
    // Credited by the follower, with no sweep yet (this follower does not sweep).
    const follower = depositFollower(f);
    const credited = await until(
      async () => {
        await f.mine(2);
        await follower.tick();
        return depositOf('held-1');
      },
      (d) => d?.status === 'credited',
    );
    expect(credited).toMatchObject({ status: 'credited', swept_at: null });
    // Parked as the sweeper leaves it after five failures in a row.
    await f.t.app.fork().execute(
      `insert into sweep_holds (address_id, network, token_address, failures, last_error, parked_at, created_at, updated_at)
       select id, 'eth', ?, 5, 'Blacklisted(0x1234)', now(), now(), now() from deposit_addresses where address = ?`,
      [f.contracts.tokens.USDT!.address.toLowerCase(), forwarder],
    );

    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const row = page.locator(`tr[data-hold="${forwarder}" i]`);
    const readToken = await f.t.operatorToken(['read']);
    await signIn(page, `${f.t.http.url}/console/deposits`, readToken);
    await row.getByText('Blacklisted(0x1234)').waitFor();
    expect(await row.getByRole('button', { name: 'Retry' }).isDisabled()).toBe(true);
    const retry = `mutation { sweepRetry(network: "eth", address: "${forwarder}", token: "USDT") { parked } }`;
    expect((await f.t.graphql(readToken, retry)).errors?.[0]?.extensions?.code).toBe('forbidden');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, `${f.t.http.url}/console/deposits`, await f.t.operatorToken());
    await row.getByText('only on retry').waitFor();
    await row.getByRole('button', { name: 'Retry' }).click();
    await row.getByText('Queued for the next sweep.').waitFor();
    // Read again: no longer parked, its count of failures cleared.
    await row.getByText('only on retry').waitFor({ state: 'detached' });
    expect(await row.locator('td').nth(3).textContent()).toBe('0');

    // The worker's next sweep takes the deposit.
    worker = await startWorker(f.t.app, {
      followers: { depositStartBlock: f.startBlock, standbyRetryMs: 100, sweepIntervalMs: 0 },
    });
    mining = (async () => {
      while (!stopped) {
        await f.provider.send('anvil_mine', ['0x4']).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const swept = await until(
      () => depositOf('held-1'),
      (d) => d?.swept_at != null,
      60_000,
    );
    expect(swept).toMatchObject({ swept_by: 'service' });
    expect(await f.balance('USDT', forwarder)).toBe(0n);
    await page.reload();
    await page.getByText('No forwarder is failing to sweep').waitFor();

    // The deposit with its fee and its sweep, and the player's issued address.
    await page.goto(`${f.t.http.url}/console/deposits?merchant=${f.merchant.id}&player=held-1`);
    const deposit = page.getByRole('table', { name: 'Deposits' }).locator('tbody tr');
    await expect.poll(() => deposit.count()).toBe(1);
    const cells = await deposit.locator('td').allTextContents();
    expect(cells.slice(1, 6)).toEqual([
      'credited',
      '4 USDT',
      '0.5 USDT',
      expect.stringMatching(/^3\.5 USDT /),
      'held-1',
    ]);
    expect(await deposit.locator('td').nth(7).locator('time').count()).toBe(1);
    const addresses = page.getByRole('table', { name: 'Addresses of player held-1' });
    await addresses.locator(`code[title="${forwarder}" i]`).waitFor();
    expect(await addresses.textContent()).toContain('deployed');
    expect(await axe(page)).toEqual([]);
    await context.close();
  }, 120_000);
});
