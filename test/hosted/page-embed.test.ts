import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPages } from '../../src/http/pages.ts';
import { sessionChanged } from '../../src/modules/session/session.transition.ts';
import { type SessionFixture, sessionFixture } from '../session/support.ts';
import { installWallet, launch, noBrowser, settling, startMerchantSite, watchProblems } from './browser.ts';

/** How long a polled assertion waits: pages load slowly on a busy 2-core machine. */
const POLL_MS = 10_000;

/**
 * The hosted page embedded with the SDK on another origin, its headers, links that are not (or no
 * longer) valid, its languages, and live status by polling when WebSockets are blocked.
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

describe('headers', () => {
  it('the page: 200 for a token that names no link (section 4.9), strict CSP, framable by any origin, no referrer, no inline script', async () => {
    const res = await fetch(`${f.t.http.url}/p/not-a-token`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const host = new URL(f.t.http.url).host;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self'(;|$)/);
    expect(csp).toContain(`connect-src 'self' ws://${host} wss://${host}`);
    expect(csp).toMatch(/frame-ancestors \*/);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    for (const tag of html.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\/hpp\/assets\//);
    // Every asset it names is served, typed, and within budget.
    const sizes: Record<string, number> = {};
    for (const [, asset] of html.matchAll(/(?:src|href)="(\/hpp\/assets\/[^"]+)"/g)) {
      const a = await fetch(`${f.t.http.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(a.status, asset).toBe(200);
      expect(a.headers.get('cache-control')).toMatch(/immutable/);
      sizes[new URL(asset!, f.t.http.url).pathname.split('/').pop()!] = Number(
        a.headers.get('content-length'),
      );
    }
    expect(Object.keys(sizes).sort()).toEqual(['icon.svg', 'page.css', 'page.js']);
    expect(sizes['page.js']).toBeLessThanOrEqual(50 * 1024);
    expect(sizes['page.css']).toBeLessThanOrEqual(10 * 1024);
  });

  it('the page: 200 for an expired link and for a token that does not decode, as for a live one (section 4.9)', async () => {
    const link = await create();
    await f.t.app
      .fork()
      .execute(`update sessions set hosted_expires_at = now() - interval '1 second' where id = ?`, [
        link.session,
      ]);
    for (const url of [link.url, `${f.t.http.url}/p/%E0%A4%A`, `${f.t.http.url}/p/`]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(/^text\/html/);
    }
  });

  it('the SDK: JavaScript, loadable from any origin, ≤ 5 kB gzip', async () => {
    const res = await fetch(`${f.t.http.url}/hpp/sdk.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(Number(res.headers.get('content-length'))).toBeLessThanOrEqual(5 * 1024);
    expect((await fetch(`${f.t.http.url}/hpp/assets/nope.js`)).status).toBe(404);
  });
});

describe.skipIf(noBrowser)('in Chromium', () => {
  it('in the SDK’s iframe on another origin: ready, completed, onCompleted; forged messages ignored; Esc closes', async () => {
    const link = await create({ network: 'eth', token: 'USDC', amount: '3' });
    const context = await browser.newContext();
    await installWallet(context, f, f.players[0]!);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const settle = settling(f);
    try {
      await page.goto(`${merchant.origin}/shop?link=${encodeURIComponent(link.url)}`);
      await page.getByRole('button', { name: 'Pay with crypto' }).click();
      const dialog = page.getByRole('dialog', { name: 'Payment' });
      await dialog.waitFor();
      const frame = page.frameLocator('iframe[title="Payment"]');
      await frame.getByRole('heading', { name: 'Connect your wallet' }).waitFor();
      await expect
        .poll(() => page.evaluate(() => (window as never as Seen).seen.messages), { timeout: POLL_MS })
        .toEqual(['cashier:ready']);
      // A message of the right shape from anywhere but the page's own frame and origin changes nothing.
      await page.evaluate(() =>
        window.postMessage({ source: 'crypto-cashier', type: 'cashier:failed' }, '*'),
      );
      await frame.getByRole('button', { name: 'Connect wallet' }).click();
      await frame.getByRole('heading', { name: 'Approve USDC' }).waitFor();
      await frame.locator('[data-wallet-action]').click();
      await frame.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await frame.locator('[data-wallet-action]').click();
      await frame.locator('#app .status-success').waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.evaluate(() => (window as never as Seen).seen), { timeout: POLL_MS })
        .toEqual({ callbacks: ['completed'], messages: ['cashier:ready', 'cashier:completed'] });
      // Framed, the page never navigates itself away; closing is the embedder's.
      expect(page.url()).toContain('/shop');
      // Esc inside the frame closes the modal too (the page asks its parent with cashier:close).
      await frame.locator('#app').click();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => (window as never as Seen).seen.callbacks)).toEqual([
        'completed',
        'close',
      ]);
      // Focus went back to what opened the modal.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('pay');
      expect(problems).toEqual([]);
    } finally {
      await settle.stop();
      await context.close();
    }
  });

  it('an unknown token and an expired link say so on the page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const unknown = await page.goto(`${f.t.http.url}/p/${'u'.repeat(43)}`);
      // Section 4.9: the page renders 200 for any token; its calls say what is wrong.
      expect(unknown?.status()).toBe(200);
      await page.locator('[data-gone="not_found"]', { hasText: 'not valid' }).waitFor();
      const link = await create();
      expect((await fetch(link.url)).status).toBe(200);
      await f.t.app
        .fork()
        .execute(`update sessions set hosted_expires_at = now() - interval '1 second' where id = ?`, [
          link.session,
        ]);
      expect((await page.goto(link.url))?.status()).toBe(200);
      await page.locator('[data-gone="expired"]', { hasText: 'expired' }).waitFor();
      // A link that runs out while the page is open: the countdown reaches zero and the page says so.
      const short = await create();
      await f.t.app
        .fork()
        .execute(`update sessions set hosted_expires_at = now() + interval '3 seconds' where id = ?`, [
          short.session,
        ]);
      await page.goto(short.url);
      await page.getByRole('heading', { name: 'Choose a network' }).waitFor();
      expect(await page.locator('#time-left').textContent()).toMatch(/^0:0[0-3]$/);
      await page.locator('[data-gone="expired"]').waitFor({ timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  it.each([
    ['ru', 'Выберите сеть', 'Сеть', 'Подключите кошелёк', 'Получатель'],
    ['es', 'Elige una red', 'Red', 'Conecta tu billetera', 'Pagar a'],
  ])(
    'speaks %s: the components and the page’s own texts',
    async (language, first, networkLabel, connect, payTo) => {
      const link = await create({ language });
      const context = await browser.newContext();
      await installWallet(context, f, f.players[1]!);
      const page = await context.newPage();
      try {
        await page.goto(link.url);
        await page.getByRole('heading', { name: first }).waitFor();
        expect(await page.locator('html').getAttribute('lang')).toBe(language);
        await page.getByRole('button', { name: 'ETH' }).click();
        await page.getByRole('heading', { name: connect }).waitFor();
        // The summary's labels in the language: who is paid first, then the chosen network.
        await expect
          .poll(async () => (await page.locator('.summary dt').allTextContents()).slice(0, 2), {
            timeout: POLL_MS,
          })
          .toEqual([payTo, networkLabel]);
      } finally {
        await context.close();
      }
    },
  );

  it('a dropped socket: polling meanwhile, then the subscription again', async () => {
    const link = await create();
    const context = await browser.newContext();
    const sockets: { close(): Promise<void> }[] = [];
    await context.routeWebSocket(/\/graphql$/, (ws) => {
      ws.connectToServer();
      sockets.push(ws);
    });
    const page = await context.newPage();
    try {
      await page.goto(link.url);
      await expect
        .poll(() => page.locator('body').getAttribute('data-live'), { timeout: POLL_MS })
        .toBe('push');
      await sockets[0]!.close();
      await expect
        .poll(() => page.locator('body').getAttribute('data-live'), { timeout: POLL_MS })
        .toBe('poll');
      await expect
        .poll(() => page.locator('body').getAttribute('data-live'), { timeout: 10_000 })
        .toBe('push');
      expect(sockets.length).toBe(2);
      // The new subscription is listening on the server.
      await expect.poll(() => f.t.app.pubsub.subscribers(sessionChanged), { timeout: POLL_MS }).toBe(1);
      // The new subscription carries changes (sooner than the 2 s poll, which has stopped).
      const res = await fetch(`${f.t.http.url}/v1/hpp/step`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link.token, action: 'select_network', value: 'eth' }),
      });
      expect(res.status).toBe(200);
      await page.getByRole('heading', { name: 'Connect your wallet' }).waitFor({ timeout: 1_500 });
    } finally {
      await context.close();
    }
  });

  it('a status read answered after the page moved on does not take the player back a step', async () => {
    const link = await create();
    const context = await browser.newContext();
    await context.routeWebSocket(/\/graphql$/, (ws) => ws.close());
    // From `hold` on, each status read is answered by the server at once and delivered to the page
    // only when released: a read in flight while the player's step is posted, as on a slow network.
    let hold = false;
    const held: { release(): Promise<void> }[] = [];
    let heldOne!: () => void;
    const first = new Promise<void>((resolve) => {
      heldOne = resolve;
    });
    await context.route('**/v1/hpp/status', async (route) => {
      if (!hold) return route.continue();
      const response = await route.fetch();
      held.push({ release: () => route.fulfill({ response }).catch(() => {}) });
      heldOne();
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Choose a network' }).waitFor();
      hold = true;
      await first; // the server answered "Choose a network"; the page has not heard it yet
      await page.getByRole('button', { name: 'ETH' }).click();
      await page.getByRole('heading', { name: 'Connect your wallet' }).waitFor();
      const stale = page.waitForResponse('**/v1/hpp/status');
      await held[0]!.release();
      await (await stale).finished();
      // Time for the page to read the late answer (later reads stay held, so nothing else corrects it).
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      expect(await page.locator('#step-heading').textContent()).toBe('Connect your wallet');
      expect(problems).toEqual([]);
    } finally {
      for (const read of held) await read.release();
      await context.close();
    }
  });

  it('with WebSockets blocked, polls /v1/hpp/status and still reaches the outcome', async () => {
    const link = await create({ network: 'eth', token: 'USDC', amount: '1' });
    const context = await browser.newContext();
    await context.routeWebSocket(/\/graphql$/, (ws) => ws.close());
    await installWallet(context, f, f.players[1]!);
    const page = await context.newPage();
    const polls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/hpp/status')) polls.push(r.url());
    });
    const settle = settling(f);
    try {
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.locator('[data-wallet-action]').click();
      await page.getByRole('heading', { name: 'Confirm the payment' }).waitFor();
      await page.locator('[data-wallet-action]').click();
      await page.locator('#app .status-success').waitFor({ timeout: 20_000 });
      expect(await page.locator('body').getAttribute('data-live')).toBe('poll');
      expect(polls.length).toBeGreaterThan(1);
    } finally {
      await settle.stop();
      await context.close();
    }
  });
});

type Seen = { seen: { callbacks: string[]; messages: string[] } };
