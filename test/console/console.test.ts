import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchProblems } from '../hosted/browser.ts';
import { type ConsoleStack, consoleStack, noBrowser, openSession, pay, settle, signIn } from './support.ts';

/** The operator console in real Chromium: sign-in, routing, merchants, live sessions, sign-out. */

const POLL = { timeout: 15_000 };
let s: ConsoleStack;
beforeAll(async () => {
  s = await consoleStack();
});
afterAll(() => s?.close());

describe.skipIf(noBrowser)('the operator console', () => {
  it('is served at /console with its own CSP, never framed, every view URL the same page', async () => {
    for (const path of ['/console', '/console/', '/console/merchants/mer_x', '/console/system']) {
      const res = await fetch(`${s.f.t.http.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-(inline|eval)/);
      expect(await res.text()).toContain('/console/assets/console.js?v=');
    }
  });

  it('signs in with the devstack token, lists the demo merchant, routes by URL with back, and signs out', async () => {
    const context = await s.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${s.url}/merchants`);
    // A wrong token is refused with the API's reason and never kept.
    await page.getByLabel('Operator token').fill('opk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'This token does not work' }).waitFor();
    await signIn(page, `${s.url}/merchants`, s.operatorToken);
    await page.getByRole('heading', { name: 'Merchants' }).waitFor();
    await page.getByRole('link', { name: 'Demo merchant' }).click();
    await page.getByRole('heading', { name: 'Demo merchant' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/merchants/${s.demoMerchantId}`);
    await page.goBack();
    await page.getByRole('heading', { name: 'Merchants' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/merchants');
    // A pasted link opens the same view in another tab of the same session.
    const other = await context.newPage();
    await other.goto(`${s.url}/merchants/${s.demoMerchantId}`);
    await other.getByRole('heading', { name: 'Operator console' }).waitFor();
    // Only sessionStorage holds the token: a new tab must sign in again.
    await other.close();
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator token').waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await page.reload();
    await page.getByLabel('Operator token').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a session created and paid through the REST API appears in the list and reaches completed live', async () => {
    const context = await s.browser.newContext();
    const page = await context.newPage();
    await signIn(page, `${s.url}/sessions`, s.operatorToken);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.getByText('Live: new and changed sessions appear here.').waitFor();
    const first = await openSession(s.f, { amount: '3.25', external_order_id: 'console-live-1' });
    const row = page.locator(`tr[data-session="${first.session}"]`);
    await row.waitFor(POLL);
    await expect.poll(() => row.textContent(), POLL).toContain('pending');
    await pay(s.f, first, s.f.players[0]!);
    await settle(s.f, first.session);
    await expect.poll(() => row.textContent(), POLL).toContain('completed');
    expect(await row.textContent()).toContain('3.25 USDC');
    // Searched by the merchant's order reference; the detail shows the payment on chain.
    await page.getByLabel('Search').fill('console-live-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: first.session }).click();
    await page.getByRole('heading', { name: /Session/ }).waitFor();
    await page.getByText('Confirmations').waitFor();
    // The step history, oldest first: each change, from where to where, and what made it.
    const rows = page.getByRole('table', { name: 'Step history' }).locator('tbody tr');
    await expect.poll(() => rows.count(), POLL).toBe(6);
    const expected = [
      ['Opened', 'connect_wallet', 'pending', 'Merchant API'],
      ['Step', 'connect_wallet → awaiting_approval', 'Merchant API'],
      ['Step', 'awaiting_approval → awaiting_payment', 'Merchant API'],
      ['Step', 'awaiting_payment → processing', 'pending → processing', 'Merchant API'],
      ['Payment found', 'processing', 'Chain follower'],
      ['Completed', 'processing → completed', 'processing → completed', 'Chain follower'],
    ];
    const texts = await rows.allTextContents();
    expected.forEach((parts, i) => {
      for (const part of parts) expect(texts[i], `row ${i}`).toContain(part);
    });
    // Times in the browser's zone, the UTC time on hover, the instant the API recorded.
    const api = await s.f.t.graphql(
      s.operatorToken,
      `query ($id: ID!) { session(id: $id) { history { at } } }`,
      {
        id: first.session,
      },
    );
    const at: string[] = api.data.session.history.map((h: { at: string }) => h.at);
    for (const [i, time] of (await rows.locator('time').all()).entries()) {
      expect(await time.getAttribute('datetime')).toBe(at[i]);
      expect(await time.getAttribute('title')).toBe(`${at[i]!.replace('T', ' ').slice(0, 19)} UTC`);
    }
    await context.close();
  });

  it('creates a merchant, renames it, issues an API key (secret shown once) and revokes it', async () => {
    const context = await s.browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await signIn(page, `${s.url}/merchants`, s.operatorToken);
    await page.getByLabel('Name').fill('Console Co');
    await page.getByRole('button', { name: 'Create merchant' }).click();
    await page.getByRole('heading', { name: 'Console Co' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    await page.getByLabel(/^Display name/).fill('Console Casino');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    expect((await s.f.t.app.services.merchants.get(s.f.t.app.fork(), id)).displayName).toBe('Console Casino');
    await page.getByLabel('Label').fill('shop-backend');
    await page.getByRole('button', { name: 'Issue API key' }).click();
    await page.getByText('its secret is shown once').waitFor();
    const secret = await page.locator('.secret code').nth(1).textContent();
    expect(secret).toMatch(/^\S{20,}$/);
    await page.getByRole('button', { name: 'Revoke shop-backend' }).click();
    await page.getByText('revoked', { exact: true }).waitFor();
    const keys = await s.f.t.app.services.merchants.listKeys(s.f.t.app.fork(), id);
    expect(keys.map((k) => [k.label, Boolean(k.revokedAt)])).toEqual([['shop-backend', true]]);
    await context.close();
  });

  it('a read-scoped token sees the views, its name and scopes, and every change button disabled', async () => {
    const { token } = await s.f.t.app.services.operators.createToken(s.f.t.app.fork(), {
      name: 'auditor',
      scopes: ['read'],
    });
    const context = await s.browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signIn(page, `${s.url}/merchants`, token);
    await page.getByRole('link', { name: 'Demo merchant' }).waitFor();
    await page.getByText('Signed in as auditor (read)').waitFor();
    await page.getByText('read only').waitFor();
    const create = page.getByRole('button', { name: 'Create merchant' });
    expect(await create.isDisabled()).toBe(true);
    expect(await create.getAttribute('title')).toContain('may only read');
    await page.getByRole('link', { name: 'Demo merchant' }).click();
    await page.getByRole('heading', { name: 'Demo merchant' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save profile' }).isDisabled()).toBe(true);
    // The API refuses the change itself, whatever the page shows.
    const refused = await s.f.t.graphql(token, 'mutation { createMerchant(name: "Sneaky") { id } }');
    expect(refused.errors?.[0]?.extensions?.code).toBe('forbidden');
    // An admin token's buttons work.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, `${s.url}/merchants`, s.operatorToken);
    await page.getByText(/Signed in as .* \(.*admin.*\)/).waitFor();
    expect(await page.getByRole('button', { name: 'Create merchant' }).isDisabled()).toBe(false);
    await context.close();
  });

  it('a token that stops working returns to the sign-in form with the reason', async () => {
    const token = await s.f.t.operatorToken();
    const context = await s.browser.newContext();
    const page = await context.newPage();
    await signIn(page, `${s.url}/merchants`, token);
    // The view's reads are done before the token goes (else the sign-in form may win the race to the click).
    await page.getByRole('link', { name: 'Demo merchant' }).waitFor();
    // Revoked (as the CLI would) while the console is open.
    const hash = createHash('sha256').update(token).digest('hex');
    await s.f.t.app
      .fork()
      .execute('update operator_tokens set revoked_at = now() where token_hash = ?', [hash]);
    await page.getByRole('link', { name: 'System' }).click();
    await page.getByRole('alert').filter({ hasText: 'the token stopped working' }).waitFor(POLL);
    await page.getByLabel('Operator token').waitFor();
    await context.close();
  });
});
