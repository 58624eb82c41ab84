import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPages } from '../../src/http/pages.ts';
import { type SessionFixture, sessionFixture } from '../session/support.ts';
import { installWallet, launch, noBrowser, startMerchantSite, watchProblems } from './browser.ts';

/** How long a polled assertion waits: pages load slowly on a busy 2-core machine. */
const POLL_MS = 10_000;

/**
 * The page with a keyboard and a screen reader, on a 360 px screen, with several wallets, with none,
 * and with the wrong account selected; the SDK's focus trap.
 */

let f: SessionFixture;
let browser: Browser;
let merchant: Awaited<ReturnType<typeof startMerchantSite>>;
beforeAll(async () => {
  f = await sessionFixture({ players: 2, pages: webPages });
  merchant = await startMerchantSite(f.t.http.url);
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await merchant?.close();
  await f?.close();
});

async function create(body: Record<string, unknown> = {}) {
  const res = await f.call('/v1/hpp/sessions', body);
  expect(res.status).toBe(200);
  return res.body as unknown as { session: string; token: string; url: string };
}

describe.skipIf(noBrowser)('access', () => {
  it('works with the keyboard alone on a 360 px screen, announcing each new step', async () => {
    const link = await create();
    const context = await browser.newContext({ viewport: { width: 360, height: 720 } });
    await installWallet(context, f, f.players[0]!);
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Choose a network' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(() => document.activeElement?.textContent === 'ETH')) break;
      }
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Connect your wallet' }).waitFor();
      // The new step's heading has the focus, and the live region says where the player is.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: POLL_MS })
        .toBe('Connect your wallet');
      await expect
        .poll(() => page.locator('#announce').textContent(), { timeout: POLL_MS })
        .toBe('Connect your wallet');
      expect(await page.locator('#announce').getAttribute('aria-live')).toBe('polite');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Choose a coin' }).waitFor();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Enter the amount' }).waitFor();
      // A wrong amount is said next to the field, and the field is marked invalid.
      await page.keyboard.press('Tab');
      await page.keyboard.type('0');
      await page.keyboard.press('Enter');
      await page.getByText('Enter a positive amount').waitFor();
      expect(await page.getByRole('textbox').getAttribute('aria-invalid')).toBe('true');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('2.5');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: /^Approve / }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('several wallets: the player chooses one; the wrong account is a clear message, then retried', async () => {
    const link = await create({ network: 'eth', token: 'USDC', amount: '1' });
    const context = await browser.newContext();
    const wallet = await installWallet(context, f, f.players[0]!);
    // A second extension that announces itself and refuses everything.
    await context.addInitScript(() => {
      const provider = {
        request: () => Promise.reject(Object.assign(new Error('not this one'), { code: 4001 })),
      };
      const info = {
        uuid: '6b1c8d2e-0000-4000-8000-000000000002',
        name: 'Other Wallet',
        icon: '',
        rdns: 'other',
      };
      window.addEventListener('eip6963:requestProvider', () =>
        window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: { info, provider } })),
      );
    });
    const page = await context.newPage();
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Choose a wallet' }).waitFor();
      await page.locator('[data-wallet="Test Wallet"]').click();
      await page.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      wallet.account = f.players[1]!;
      await page.locator('[data-wallet-action]').click();
      await page
        .getByRole('alert')
        .getByText(/but this payment is set up for/)
        .waitFor();
      wallet.account = f.players[0]!;
      await page.locator('[data-retry]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('a coin the wallet cannot pay with is shown disabled with its reason, reachable and inert', async () => {
    const link = await create({ network: 'eth', amount: '5000' });
    const context = await browser.newContext();
    await installWallet(context, f, f.players[1]!);
    const page = await context.newPage();
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: 'Choose a coin' }).waitFor();
      const usdc = page.locator('button[data-value="USDC"]');
      expect(await usdc.getAttribute('aria-disabled')).toBe('true');
      expect(await usdc.textContent()).toContain('Insufficient balance');
      // The reason is the button's description, so a screen reader says it with the coin.
      const describedBy = await usdc.getAttribute('aria-describedby');
      expect(await page.locator(`#${describedBy}`).textContent()).toBe('Insufficient balance');
      await usdc.focus();
      await page.keyboard.press('Enter');
      await new Promise((r) => setTimeout(r, 300));
      expect(await page.locator('[data-step]').getAttribute('data-step')).toBe('token_select');
    } finally {
      await context.close();
    }
  });

  it('no wallet in the browser: deep links that open this page in wallet apps', async () => {
    const link = await create({ network: 'eth' });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByText('No crypto wallet was found').waitFor();
      const hrefs = await page
        .locator('.no-wallet a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(hrefs).toEqual([
        `https://metamask.app.link/dapp/${link.url.replace(/^https?:\/\//, '')}`,
        `https://link.trustwallet.com/open_url?coin_id=60&url=${encodeURIComponent(link.url)}`,
        `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(link.url)}`,
      ]);
    } finally {
      await context.close();
    }
  });

  it('the SDK keeps focus inside its dialog and gives it back on close', async () => {
    const link = await create();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${merchant.origin}/shop?link=${encodeURIComponent(link.url)}`);
      await page.getByRole('button', { name: 'Pay with crypto' }).focus();
      await page.keyboard.press('Enter');
      const frame = page.frameLocator('iframe[title="Payment"]');
      await frame.getByRole('heading', { name: 'Choose a network' }).waitFor();
      const dialog = page.getByRole('dialog', { name: 'Payment' });
      expect(await dialog.getAttribute('aria-modal')).toBe('true');
      // Tabbing from the close button never reaches the shop's own button behind the modal.
      await page.getByRole('button', { name: 'Close payment' }).focus();
      for (let i = 0; i < 4; i++) {
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('pay');
      }
      await page.getByRole('button', { name: 'Close payment' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('pay');
      expect(
        await page.evaluate(() => (window as never as { seen: { callbacks: string[] } }).seen.callbacks),
      ).toEqual(['close']);
    } finally {
      await context.close();
    }
  });
});
