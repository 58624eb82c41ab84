import { Wallet } from 'ethers';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutChanged } from '../../src/modules/payout/payout.transition.ts';
import { launch, noBrowser } from '../hosted/browser.ts';
import { type PayoutFixture, payoutFixture, signOrder, until } from '../payout/support.ts';
import { axe, consoleRoutes, signIn } from './support.ts';

/**
 * The payouts view is live: a payout or a batch created through the merchant's REST API appears, and
 * its authorization shows, without a reload (payouts and batch items are announced when created, not
 * only when they change); the batch view shows every item's state, live.
 */

const POLL = { timeout: 15_000 };
let f: PayoutFixture;
let browser: Browser;
beforeAll(async () => {
  f = await payoutFixture({ pages: consoleRoutes });
  await f.approve('USDT');
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  if (!noBrowser) browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await f?.close();
});

describe.skipIf(noBrowser)('the payouts view, live', () => {
  it('shows a payout and a batch created through the REST API, and the authorization, without a reload', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signIn(page, `${f.t.http.url}/console/payouts`, await f.t.operatorToken());
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await page.getByText('No payout matches.').waitFor();
    // The view's subscription is up before anything changes (a change before it is not live news).
    await until(
      async () => f.t.app.services.pubsub.subscribers(payoutChanged),
      (n) => n > 0,
    );
    // Gone if the page reloads.
    await page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });

    const created = await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: '3.5',
      recipient: Wallet.createRandom().address,
      external_id: 'console-live-payout',
    });
    expect(created.status).toBe(200);
    const id = created.body.payout as string;
    const row = page.locator(`tr[data-payout="${id}"]`);
    await row.waitFor(POLL);
    expect(await row.textContent()).toContain('pending');
    expect(await row.textContent()).toContain('3.5 USDT');

    const signature = await signOrder(f.payer, created.body.typed_data);
    const authorized = await f.call('/v1/payouts/authorize', { payout: id, signature });
    expect(authorized.status).toBe(200);
    await expect.poll(() => row.textContent(), POLL).toContain('authorized');

    const batch = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: [1, 2].map(() => ({ recipient: Wallet.createRandom().address, amount: '1.25' })),
    });
    expect(batch.status).toBe(200);
    await page.getByRole('link', { name: batch.body.batch }).first().waitFor(POLL);
    for (const item of batch.body.items as { payout: string }[])
      await page.locator(`tr[data-payout="${item.payout}"]`).waitFor(POLL);

    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);

    // The batch's own view: every item with its state, following the batch's authorization live.
    await page.getByRole('link', { name: batch.body.batch }).first().click();
    await page.getByRole('heading', { level: 1, name: /^Batch/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/batches/${batch.body.batch}`);
    const items = page.getByRole('table', { name: 'Items' }).locator('tbody tr');
    await expect.poll(() => items.count(), POLL).toBe(2);
    for (const text of await items.allTextContents()) expect(text).toMatch(/1\.25 USDT.*pending/);
    expect(await axe(page)).toEqual([]);
    await until(
      async () => f.t.app.services.pubsub.subscribers(payoutChanged),
      (n) => n > 0,
    );
    const batchSignature = await signOrder(f.payer, batch.body.typed_data);
    const batchAuthorized = await f.call('/v1/payouts/batch/authorize', {
      batch: batch.body.batch,
      signature: batchSignature,
    });
    expect(batchAuthorized.status).toBe(200);
    await expect
      .poll(async () => (await items.allTextContents()).filter((t) => t.includes('authorized')).length, POLL)
      .toBe(2);
    await context.close();
  });
});
