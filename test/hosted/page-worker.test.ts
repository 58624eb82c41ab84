import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPages } from '../../src/http/pages.ts';
import { mine, type SessionFixture, sessionFixture } from '../session/support.ts';
import { installWallet, launch, noBrowser, watchProblems } from './browser.ts';

/**
 * Settlement by a worker in a separate process reaches the open page by push: the worker commits,
 * Postgres carries the notice to the API process, the subscription sends the terminal step.
 */

let f: SessionFixture;
let browser: Browser;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  f = await sessionFixture({ players: 1, pages: webPages, confirmations: [{ blocks: 2 }] });
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  }
  await f?.close();
});

async function startWorkerProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/hosted/worker-process.ts'], {
    env: {
      ...process.env,
      WORKER_INPUT: JSON.stringify({
        databaseUrl: f.t.config.databaseUrl,
        secretsKey: f.t.config.secretsKey!.toString('hex'),
        networks: f.networks,
        startBlock: f.startBlock,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return child;
}

describe.skipIf(noBrowser)('settlement in a separate worker process', () => {
  it('is pushed to the page over the subscription, with no polling', async () => {
    worker = await startWorkerProcess();
    const link = (await f.call('/v1/hpp/sessions', { network: 'eth', token: 'USDC', amount: '6' }))
      .body as unknown as { url: string; session: string };
    const context = await browser.newContext();
    await installWallet(context, f, f.players[0]!);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const statusReads: number[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/hpp/status')) statusReads.push(Date.now());
    });
    // A report of the payment refused because the worker settled the session first (invalid_action) is
    // answered by one read of where the session is; that is not polling.
    const refusals: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/v1/hpp/step') && r.status() === 400) refusals.push(Date.now());
    });
    let mining = true;
    const miner = (async () => {
      while (mining) {
        await mine(f, 1);
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await expect.poll(() => page.locator('body').getAttribute('data-live'), { timeout: 5000 }).toBe('push');
      // The page reads the status once more a moment after the subscription starts (a change in between
      // would be missed otherwise); that read is part of connecting, not of following the payment.
      await expect
        .poll(() => page.locator('body').getAttribute('data-live-settled'), { timeout: 10_000 })
        .toBe('true');
      // From the payment on, every status the page shows comes by push (the worker may settle it before
      // the processing step is even seen).
      const readsBeforePaying = statusReads.length;
      await page.locator('[data-wallet-action]').click();
      await page.locator('#app .status-success').waitFor({ timeout: 30_000 });
      expect(statusReads.length - readsBeforePaying).toBeLessThanOrEqual(refusals.length);
      expect(await page.locator('#app .error').count()).toBe(0);
      expect(await page.locator('body').getAttribute('data-live')).toBe('push');
      const row = await f.t.app
        .fork()
        .execute<{ status: string }[]>('select status from sessions where id = ?', [link.session]);
      expect(row[0]?.status).toBe('completed');
      // Chromium logs each refused report as a console error; nothing else may be there.
      expect(problems).toEqual(
        refusals.map(
          () => 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
        ),
      );
    } finally {
      mining = false;
      await miner;
      await context.close();
    }
  });
});
