import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPages } from '../../src/http/pages.ts';
import { type SessionFixture, sessionFixture } from '../session/support.ts';
import { type Receiver, startReceiver, type WebhookWorker, webhookWorker } from '../webhook/support.ts';
import { installWallet, launch, noBrowser, settling, watchProblems } from './browser.ts';

/** The hosted page in real Chromium, paying with a test EIP-1193 wallet on the anvil chain. */

let f: SessionFixture;
let browser: Browser;
let receiver: Receiver;
let hooks: WebhookWorker;
beforeAll(async () => {
  f = await sessionFixture({ players: 4, pages: webPages });
  receiver = await startReceiver(200);
  hooks = await webhookWorker(f.t);
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await hooks?.close();
  await receiver?.close();
  await f?.close();
});

async function create(body: Record<string, unknown> = {}) {
  const res = await f.call('/v1/hpp/sessions', { callback_url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return res.body as unknown as { session: string; token: string; url: string };
}

describe.skipIf(noBrowser)('the hosted page', () => {
  it('takes a deposit with no prefill through approval and payment to completed, and the webhook is sent', async () => {
    const link = await create();
    const context = await browser.newContext();
    const wallet = await installWallet(context, f, f.players[0]!);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const settle = settling(f);
    try {
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Choose a network' }).waitFor();
      await page.getByRole('button', { name: 'ETH' }).click();
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Choose a coin' }).waitFor();
      await page.locator('button[data-value="USDC"]').click();
      await page.getByLabel('Amount (USDC)').fill('7.5');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      await expect.poll(() => page.locator('.summary').textContent()).toContain('7.5 USDC');
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await page
        .locator('#app .status-success', { hasText: 'Payment received. Thank you!' })
        .waitFor({ timeout: 20_000 });
      expect(wallet.calls).toContain('wallet_switchEthereumChain');
      expect(wallet.calls.filter((m) => m === 'eth_sendTransaction')).toHaveLength(2);
      await hooks.runDue();
      await receiver.waitFor(1);
      const events = receiver.requests.map((r) => JSON.parse(r.body) as { event: string; session?: string });
      expect(events.map((e) => e.event)).toContain('payment.completed');
      expect(problems).toEqual([]);
    } finally {
      await settle.stop();
      await context.close();
    }
  });
});
