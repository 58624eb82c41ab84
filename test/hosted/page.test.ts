import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPages } from '../../src/http/pages.ts';
import { mine, type SessionFixture, sessionFixture, token } from '../session/support.ts';
import { type Receiver, startReceiver, type WebhookWorker, webhookWorker } from '../webhook/support.ts';
import {
  installWallet,
  launch,
  noBrowser,
  settling,
  startMerchantSite,
  type TestWallet,
  watchProblems,
} from './browser.ts';

/** How long a polled assertion waits: pages load slowly on a busy 2-core machine. */
const POLL_MS = 10_000;

/** Whole deposits on the hosted page in real Chromium, paying with a test EIP-1193 wallet on anvil. */

let f: SessionFixture;
let browser: Browser;
let receiver: Receiver;
let hooks: WebhookWorker;
let merchant: Awaited<ReturnType<typeof startMerchantSite>>;
beforeAll(async () => {
  f = await sessionFixture({ players: 5, pages: webPages });
  receiver = await startReceiver(200);
  hooks = await webhookWorker(f.t);
  merchant = await startMerchantSite(f.t.http.url);
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await merchant?.close();
  await hooks?.close();
  await receiver?.close();
  await f?.close();
});

async function create(body: Record<string, unknown> = {}) {
  const res = await f.call('/v1/hpp/sessions', { callback_url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return res.body as unknown as { session: string; token: string; url: string };
}

/** A fresh browser context with the test wallet of player `i`, a page, and the chain listener running. */
async function open(
  i: number,
  run: (page: Page, wallet: TestWallet, context: BrowserContext) => Promise<void>,
) {
  const context = await browser.newContext();
  const wallet = await installWallet(context, f, f.players[i]!);
  const page = await context.newPage();
  const settle = settling(f);
  try {
    await run(page, wallet, context);
  } finally {
    await settle.stop();
    await context.close();
  }
}

const outcome = (page: Page, text: string, kind = 'success') =>
  page.locator(`#app .status-${kind}`, { hasText: text }).waitFor({ timeout: 20_000 });

describe.skipIf(noBrowser)('the hosted page', () => {
  it('takes a deposit with no prefill through approval and payment to completed, and the webhook is sent', async () => {
    await f.t.app.services.merchants.update(f.t.app.fork(), f.merchant.id, { displayName: 'Acme Games' });
    const link = await create({ external_order_id: 'order-7781' });
    await open(0, async (page, wallet) => {
      const problems = watchProblems(page);
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Choose a network' }).waitFor();
      // Who is paid and for which order, before anything is signed.
      await expect
        .poll(() => page.locator('.summary').textContent(), { timeout: POLL_MS })
        .toContain('Pay toAcme GamesOrderorder-7781');
      await page.getByRole('button', { name: 'ETH' }).click();
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Choose a coin' }).waitFor();
      await page.locator('button[data-value="USDC"]').click();
      await page.getByLabel('Amount (USDC)').fill('7.5');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      await expect
        .poll(() => page.locator('.summary').textContent(), { timeout: POLL_MS })
        .toContain('7.5 USDC');
      await expect
        .poll(() => page.locator('#time-left').textContent(), { timeout: POLL_MS })
        .toMatch(/^\d+:\d\d$/);
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await outcome(page, 'Payment received. Thank you!');
      // The completed step shows the transaction that paid.
      const { txHash } = await f.t.app.services.hosted.link(f.t.app.fork(), link.token);
      expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
      await expect
        .poll(() => page.locator('.summary').textContent(), { timeout: POLL_MS })
        .toContain(`Transaction${txHash}`);
      expect(wallet.calls).toContain('wallet_switchEthereumChain');
      expect(wallet.calls.filter((m) => m === 'eth_sendTransaction')).toHaveLength(2);
      await hooks.runDue();
      await receiver.waitFor(1);
      const events = receiver.requests.map((r) => JSON.parse(r.body) as { event: string });
      expect(events.map((e) => e.event)).toContain('payment.completed');
      expect(problems).toEqual([]);
    });
  });

  it('with full prefill asks only for the wallet, then redirects to return_url with status=completed', async () => {
    const link = await create({
      network: 'eth',
      token: 'USDT',
      amount: '4',
      return_url: `${merchant.origin}/back?order=42`,
    });
    await open(1, async (page) => {
      const problems = watchProblems(page);
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Connect your wallet' }).waitFor();
      expect(await page.locator('.summary').textContent()).toContain('4 USDT');
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Approve USDT' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await outcome(page, 'Payment received');
      await page.waitForURL(`${merchant.origin}/back?order=42&status=completed`, { timeout: 10_000 });
      expect(problems).toEqual([]);
    });
  });

  it('a wallet rejection shows a clear message and the same action can be tried again', async () => {
    const link = await create({ network: 'eth', token: 'USDC', amount: '2' });
    await open(2, async (page, wallet) => {
      await page.goto(link.url);
      wallet.failNext('eth_requestAccounts', { code: 4001, message: 'User rejected the request.' });
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('alert').getByText('The request was rejected in the wallet.').waitFor();
      await page.locator('[data-retry]').click();
      await page.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      wallet.failNext('eth_sendTransaction', { code: 4001, message: 'User denied transaction signature.' });
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('alert').getByText('The request was rejected in the wallet.').waitFor();
      await page.locator('[data-retry]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      // A chain the wallet does not know is a message too, not a hang.
      wallet.failNext('wallet_switchEthereumChain', { code: 4902, message: 'Unrecognized chain ID' });
      wallet.chainId = '0x1';
      await page.locator('[data-wallet-action]').click();
      await page
        .getByRole('alert')
        .getByText(/does not know this network/)
        .waitFor();
      await page.locator('[data-retry]').click();
      await outcome(page, 'Payment received');
    });
  });

  it('a payment that reverts on chain ends in words, with the page telling the player nothing moved', async () => {
    const link = await create({
      network: 'eth',
      token: 'DAI',
      amount: '5',
      return_url: `${merchant.origin}/back`,
    });
    const player = f.players[3]!;
    await open(3, async (page) => {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Approve DAI' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      // The coins leave the wallet before the payment is sent: the router's transfer reverts.
      const dai = token(f.contracts.tokens.DAI!.address, player);
      await (
        await dai.getFunction('transfer')(
          f.deployer.address,
          await dai.getFunction('balanceOf')(player.address),
        )
      ).wait();
      await page.locator('[data-wallet-action]').click();
      // The session fails once the revert's block is final by the service's rule.
      await expect
        .poll(async () => (await f.call('/v1/cashier/status', { session: link.session })).body.step, {
          timeout: POLL_MS,
        })
        .toBe('processing');
      await mine(f, f.t.app.services.sessionChains.network('eth').finalityDepth);
      await outcome(page, 'rejected by the network', 'error');
      await page.waitForURL(`${merchant.origin}/back?status=failed`, { timeout: 10_000 });
    });
  });

  it('a payment the listener settles before the page reports it ends completed, with no error shown', async () => {
    const link = await create({ network: 'eth', token: 'USDC', amount: '3' });
    await open(4, async (page) => {
      const problems = watchProblems(page);
      // The page's report of the payment reaches the server only once the listener has settled the
      // session, so the server refuses it as an action on a terminal session (invalid_action).
      const refusals: number[] = [];
      page.on('response', (r) => {
        if (r.url().endsWith('/v1/hpp/step') && r.status() === 400) refusals.push(r.status());
      });
      await page.route('**/v1/hpp/step', async (route) => {
        const body = route.request().postDataJSON() as { action: string };
        if (body.action === 'signature_submitted') {
          await expect
            .poll(
              async () => {
                const [row] = await f.t.app
                  .fork()
                  .execute<{ status: string }[]>('select status from sessions where id = ?', [link.session]);
                return row?.status;
              },
              { timeout: 20_000 },
            )
            .toBe('completed');
        }
        await route.continue();
      });
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await outcome(page, 'Payment received');
      await expect.poll(() => refusals.length, { timeout: POLL_MS }).toBe(1);
      // The refusal only says the session moved on: the page shows where it is, not an error.
      await page.waitForTimeout(500);
      expect(await page.locator('#app .error').count()).toBe(0);
      expect(await page.locator('#app .status-success').count()).toBe(1);
      // Chromium logs every 4xx answer as a console error; the one refusal is expected here.
      expect(problems).toEqual([
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
    });
  });
});
