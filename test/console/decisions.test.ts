import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionChanged } from '../../src/modules/session/session.transition.ts';
import { until } from '../payout/support.ts';
import {
  axe,
  type ConsoleStack,
  consoleStack,
  noBrowser,
  openSession,
  payUnmatched,
  settle,
  signIn,
} from './support.ts';

/**
 * An operator's decisions in Chromium against the real stack: a payment no session claimed is
 * attached to the session it was meant for, which then completes through the chain follower; a
 * read-scoped token sees the same buttons disabled and the API refuses it.
 */

const POLL = { timeout: 15_000 };

let s: ConsoleStack;
beforeAll(async () => {
  s = await consoleStack({ players: 1 });
}, 120_000);
afterAll(() => s?.close());

describe.skipIf(noBrowser)('operator decisions in the console', () => {
  it('attaches an unmatched payment to its session, which completes; a read token cannot', async () => {
    const target = await openSession(s.f, { amount: '2.5', external_order_id: 'attach-target' });
    const strayTx = await payUnmatched(s.f, await openSession(s.f, { amount: '2.5' }), s.f.players[0]!, {
      toMerchant: true,
    });
    const context = await s.browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const row = page.locator('tr[data-payment]').filter({ has: page.locator(`code[title="${strayTx}"]`) });

    // Read only: the decision's controls are there, disabled, and the API refuses the change.
    const { token: readToken } = await s.f.t.app.services.operators.createToken(s.f.t.app.fork(), {
      name: 'auditor',
      scopes: ['read'],
    });
    await signIn(page, `${s.url}/sessions`, readToken);
    await row.getByText('2.5 USDC').waitFor();
    const paymentId = (await row.getAttribute('data-payment'))!;
    expect(await row.getByRole('button', { name: 'Attach' }).isDisabled()).toBe(true);
    expect(await row.getByRole('button', { name: 'Mark refunded' }).isDisabled()).toBe(true);
    const refused = await s.f.t.graphql(
      readToken,
      `mutation ($p: ID!, $s: ID!) { attachPayment(paymentId: $p, sessionId: $s) { state } }`,
      { p: paymentId, s: target.session },
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('forbidden');

    // An admin attaches it by the session's id.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, `${s.url}/sessions`, s.operatorToken);
    await row.getByLabel(`Session to attach payment ${paymentId} to`).fill(target.session);
    await row.getByRole('button', { name: 'Attach' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Show').selectOption('attached');
    await row.getByRole('link', { name: target.session }).click();
    await page.getByRole('heading', { name: /^Session/ }).waitFor();
    const history = page.getByRole('table', { name: 'Step history' }).locator('tbody tr');
    await history.last().filter({ hasText: 'Payment found' }).filter({ hasText: 'Operator' }).waitFor();
    expect(await history.last().textContent()).toContain('pending → processing');
    expect(await axe(page)).toEqual([]);

    // The follower completes it at the payment's depth; the open detail follows live.
    await until(
      async () => s.f.t.app.services.pubsub.subscribers(sessionChanged),
      (n) => n > 0,
    );
    await settle(s.f, target.session);
    await expect.poll(() => history.last().textContent(), POLL).toContain('Completed');
    expect(await history.last().textContent()).toContain('Chain follower');
    expect(await page.locator('.facts').first().textContent()).toContain('completed');
    const api = await s.f.t.graphql(
      s.operatorToken,
      `query ($id: ID!) { session(id: $id) { status txHash history { kind cause } } }`,
      { id: target.session },
    );
    expect(api.data.session).toMatchObject({ status: 'completed', txHash: strayTx });
    expect(
      api.data.session.history.map((h: { kind: string; cause: string }) => `${h.kind}:${h.cause}`),
    ).toEqual(['created:merchant_api', 'payment_found:operator', 'completed:chain']);
    await context.close();
  });
});
