import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Wallet } from 'ethers';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { Payout } from '../../src/modules/payout/payout.entity.ts';
import { parseUnits } from '../../src/money.ts';
import { watchProblems } from '../hosted/browser.ts';
import { token as tokenContract } from '../session/support.ts';
import { type Receiver, startReceiver, type WebhookWorker, webhookWorker } from '../webhook/support.ts';
import {
  axe,
  type ConsoleStack,
  consoleStack,
  noBrowser,
  openSession,
  pay,
  payUnmatched,
  settle,
  signIn,
} from './support.ts';

/**
 * Every view of the console in Chromium against data made through the API and the chain: webhooks
 * that fail and are resent, a failed payout's reason, the report's CSV against the chain, and
 * axe-core on every view. With CONSOLE_SCREENSHOTS=<dir> each view is also saved as a PNG.
 */

const POLL = { timeout: 15_000 };
const shots = process.env.CONSOLE_SCREENSHOTS;

let s: ConsoleStack;
let receiver: Receiver;
let hooks: WebhookWorker;
let sessionId: string;
let payoutId: string;
let strayTx: string;
beforeAll(async () => {
  s = await consoleStack();
  receiver = await startReceiver(500);
  const first = await openSession(s.f, { amount: '41.5', callback_url: receiver.url, player_id: 'player-7' });
  sessionId = first.session;
  await pay(s.f, first, s.f.players[1]!);
  await settle(s.f, sessionId);
  // A router payment naming no session.
  strayTx = await payUnmatched(s.f, await openSession(s.f, { amount: '2.5' }), s.f.players[2]!);
  // A payout that failed on chain for want of allowance, as the confirmer records it.
  const em = s.f.t.app.fork();
  const payout = em.create(Payout, {
    id: newId('payout'),
    merchant: s.f.merchant.id,
    network: 'eth',
    token: 'USDT',
    tokenAddress: s.f.contracts.tokens.USDT!.address.toLowerCase(),
    amount: '5',
    amountRaw: '5000000',
    recipient: Wallet.createRandom().address,
    recipientHex: Wallet.createRandom().address.toLowerCase(),
    payer: s.f.settlement,
    router: Wallet.createRandom().address.toLowerCase(),
    chainId: 31337,
    nonce: '1',
    deadline: Math.floor(Date.now() / 1000) + 600,
    status: 'failed',
    failureReason: 'insufficient_allowance',
    settledAt: new Date(),
  });
  await em.flush();
  payoutId = payout.id;
}, 180_000);
afterAll(async () => {
  await hooks?.close();
  await receiver?.close();
  await s?.close();
});

async function signedIn(run: (page: Page) => Promise<void>, at = '') {
  const context = await s.browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1360, height: 900 },
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  try {
    await signIn(page, `${s.url}${at}`, s.operatorToken);
    await run(page);
  } finally {
    await context.close();
  }
}

/** Every view's path, its heading and a text of this stack's data it must show. */
function everyView(): [string, string | RegExp, string?][] {
  return [
    ['', 'Overview', '41.5'],
    ['/merchants', 'Merchants', 'Demo merchant'],
    [`/merchants/${s.f.merchant.id}`, 'Session merchant'],
    [`/sessions?merchant=${s.f.merchant.id}`, 'Sessions', sessionId],
    [`/sessions/${sessionId}`, /^Session/, 'player-7'],
    ['/payouts', 'Payouts', 'insufficient_allowance'],
    [`/payouts/${payoutId}`, /^Payout/, 'insufficient_allowance'],
    ['/deposits', 'Deposits to standing addresses'],
    ['/webhooks', 'Webhooks', 'payment.completed'],
    [`/reports?merchant=${s.f.merchant.id}`, 'Settlement report', '41.5'],
    ['/system', 'System', 'Chain followers'],
  ];
}

/** Buttons that change nothing: filters, paging, copying, the CSV download, retrying a read, signing out. */
const READ_ONLY_BUTTONS = /^(Apply|Newest|Older|Download CSV|Try again|Sign out|Copy .+)$/;

describe.skipIf(noBrowser)('the console views', () => {
  it('every view renders its data and axe-core finds no serious violation', async () => {
    const views = everyView();
    if (shots) mkdirSync(shots, { recursive: true });
    await signedIn(async (page) => {
      // No console error, CSP refusal or failed request on any view.
      const problems = watchProblems(page);
      for (const [at, heading, text] of views) {
        await page.goto(`${s.url}${at}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (text) await page.getByText(text).first().waitFor();
        expect(await axe(page), at || '/').toEqual([]);
        if (shots)
          await page.screenshot({
            path: path.join(shots, `${at.split('?')[0]!.replaceAll('/', '_') || 'overview'}.png`),
            fullPage: true,
          });
      }
      // Keyboard: the skip link leads to the view.
      await page.keyboard.press('Tab');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe('Skip to content');
      // A read still in flight when the test navigates away is aborted by the browser: not a problem.
      expect(problems.filter((p) => !p.endsWith('net::ERR_ABORTED'))).toEqual([]);
    });
  });

  it('a read-scoped token sees every view with its data, and every button that would change something is disabled', async () => {
    const readToken = await s.f.t.operatorToken(['read']);
    const context = await s.browser.newContext({ viewport: { width: 1360, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await signIn(page, s.url, readToken);
      let disabled = 0;
      for (const [at, heading, text] of everyView()) {
        await page.goto(`${s.url}${at}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (text) await page.getByText(text).first().waitFor();
        // Every view's reads are allowed: no refusal anywhere.
        expect(await page.getByText(/forbidden|may not/i).count(), at).toBe(0);
        for (const button of await page.getByRole('button').all()) {
          const name = (await button.getAttribute('aria-label')) ?? (await button.textContent())!.trim();
          if (await button.isDisabled()) {
            disabled++;
            expect(await button.getAttribute('title'), `${at}: ${name}`).toContain('may only read');
          } else expect(name, at).toMatch(READ_ONLY_BUTTONS);
        }
      }
      // The change buttons were there to be disabled (create, save, issue, resend, attach, retry, …).
      expect(disabled).toBeGreaterThan(8);
      expect(problems.filter((p) => !p.endsWith('net::ERR_ABORTED'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a failing webhook endpoint shows its failing attempts, and a resend delivers', async () => {
    // Its clock starts now, with the delivery due.
    hooks = await webhookWorker(s.f.t);
    await hooks.runDue();
    await receiver.waitFor(1);
    await signedIn(async (page) => {
      const row = page.locator('tr[data-delivery]').filter({ hasText: 'payment.completed' }).first();
      await row.waitFor();
      await row.getByText(/1 attempt, last 500/).click();
      await row.getByText('HTTP 500').waitFor();
      receiver.answer = 200;
      await row.getByRole('button', { name: 'Resend' }).click();
      await page.getByText(/^Queued again as wh_/).waitFor();
      await hooks.runDue();
      await expect
        .poll(() => page.locator('tr[data-delivery]').filter({ hasText: 'delivered' }).count(), POLL)
        .toBe(1);
    }, `/webhooks?subject=${sessionId}`);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('an unmatched payment is counted on the overview, listed with the sessions, and marked refunded', async () => {
    await signedIn(async (page) => {
      page.on('dialog', (d) => void d.accept());
      await page.getByRole('link', { name: /1 payments no session claimed/ }).click();
      await page.getByRole('heading', { name: 'Payments no session claimed' }).waitFor();
      const row = page.locator('tr[data-payment]').filter({ has: page.locator(`code[title="${strayTx}"]`) });
      await row.getByText('2.5 USDC').waitFor();
      expect(await axe(page)).toEqual([]);
      await row.getByRole('button', { name: 'Mark refunded' }).click();
      await row.waitFor({ state: 'detached' });
      await page.getByLabel('Show').selectOption('refunded');
      await page.locator('tr[data-payment]').getByText('refunded', { exact: true }).waitFor();
    });
    const res = await s.f.t.graphql(
      s.operatorToken,
      'query { unmatchedPayments(filter: { state: refunded }) { nodes { txHash resolvedBy } } }',
    );
    expect(res.data.unmatchedPayments.nodes.map((p: { txHash: string }) => p.txHash)).toEqual([strayTx]);
  });

  it('a parked forwarder is counted on the overview, listed with its reason, and its retry reaches the API', async () => {
    // A forwarder of the merchant (this stack's network takes no standing deposits, so made directly).
    const forwarder = Wallet.createRandom().address.toLowerCase();
    await s.f.t.app.fork().execute(
      `insert into deposit_addresses (merchant_id, network, player_id, wallet, player_key, address, deployed, created_at)
       values (?, 'eth', 'held-1', ?, ?, ?, false, now())`,
      [s.f.merchant.id, s.f.settlement.toLowerCase(), `0x${'ab'.repeat(32)}`, forwarder],
    );
    // Parked as the sweeper leaves it after five failures in a row.
    await s.f.t.app.fork().execute(
      `insert into sweep_holds (address_id, network, token_address, failures, last_error, parked_at, created_at, updated_at)
       select id, 'eth', ?, 5, 'Blacklisted(0x1234)', now(), now(), now() from deposit_addresses where address = ?`,
      [s.f.contracts.tokens.USDC!.address.toLowerCase(), forwarder],
    );
    await signedIn(async (page) => {
      await page.getByRole('link', { name: /1 forwarders parked/ }).click();
      await page.getByRole('heading', { name: 'Sweeps held back' }).waitFor();
      const row = page.locator(`tr[data-hold="${forwarder}"]`);
      await row.getByText('Blacklisted(0x1234)').waitFor();
      await row.getByText('only on retry').waitFor();
      expect(await axe(page)).toEqual([]);
      await row.getByRole('button', { name: 'Retry' }).click();
      // This stack's network takes no standing deposits, so the API refuses the retry: the row says why.
      // (A retry that succeeds, then the sweep: test/console/deposits.test.ts.)
      await row.getByRole('alert').getByText('has no standing deposit addresses').waitFor();
    });
  });

  it('a follower whose node disagrees shows the problem and since when on the system view, live, and counts on the overview', async () => {
    const em = s.f.t.app.fork();
    try {
      await signedIn(async (page) => {
        await page.getByRole('heading', { name: 'Chain followers' }).waitFor();
        // Gone if the page reloads: the problem must come to the open view by itself.
        await page.evaluate(() => {
          (window as unknown as { stayed: boolean }).stayed = true;
        });
        // As the follower records it when the node's finalized block contradicts what it followed.
        await em.execute(
          `insert into chain_followers (network, owner, since, node_problem, node_problem_since, ticked_at)
           values ('eth', 'console-test', now(), 'finalized block 12 hash differs from the one followed',
                   now() - interval '5 minutes', now())
           on conflict (network) do update set node_problem = excluded.node_problem,
                   node_problem_since = excluded.node_problem_since`,
        );
        const alert = page.getByRole('alert').filter({ hasText: 'The node disagrees' });
        await alert
          .getByText(/eth .*: finalized block 12 hash differs from the one followed/)
          .first()
          .waitFor(POLL);
        await alert.locator('time').first().waitFor();
        expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
        expect(await axe(page)).toEqual([]);
        await page.getByRole('link', { name: 'Overview' }).click();
        await page.getByRole('link', { name: /1 networks whose node is inconsistent.*\(eth\)/ }).waitFor();
      }, '/system');
    } finally {
      await em.execute(`update chain_followers set node_problem = null, node_problem_since = null`);
    }
  });

  it('a failed payout says why', async () => {
    await signedIn(async (page) => {
      await page
        .getByRole('alert')
        .filter({ hasText: 'insufficient_allowance: the payout wallet has not approved the router' })
        .waitFor();
    }, `/payouts/${payoutId}`);
  });

  it('the settlement report downloads as CSV whose totals equal the chain’s', async () => {
    await signedIn(async (page) => {
      await page.getByRole('cell', { name: '41.5' }).first().waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ]);
      const csv = readFileSync((await download.path())!, 'utf8')
        .trimEnd()
        .split('\r\n')
        .slice(1);
      let position = 0n;
      for (const line of csv) {
        const [, , , , , symbol, opening, amountIn, , amountOut] = line.split(',');
        if (symbol !== 'USDC') continue;
        position += parseUnits(opening!, 6) + parseUnits(amountIn!, 6) - parseUnits(amountOut!, 6);
      }
      const chain = (await tokenContract(s.f.contracts.tokens.USDC!.address, s.f.deployer).getFunction(
        'balanceOf',
      )(s.f.settlement)) as bigint;
      expect(position).toBe(chain);
      expect(position).toBeGreaterThan(0n);
    }, `/reports?merchant=${s.f.merchant.id}`);
  });
});
