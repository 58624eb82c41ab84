/**
 * The operator console in Chromium against a real stack: the whole service with the hosted page and
 * the console mounted, on a fresh anvil with deployed routers, the demo merchant provisioned as
 * `npm start` does (its `devstack.json` gives the operator token), and a merchant that takes deposits.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { keccak256, toUtf8Bytes, Wallet } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import { provisionDemo } from '../../src/devstack/provision.ts';
import { consolePages } from '../../src/http/console.ts';
import { webPages } from '../../src/http/pages.ts';
import { settlementCsvPage } from '../../src/modules/report/index.ts';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import { launch, noBrowser } from '../hosted/browser.ts';
import {
  followerOf,
  mine,
  type SessionFixture,
  type StepBody,
  sendWalletAction,
  sessionFixture,
} from '../session/support.ts';

export { noBrowser };

export interface ConsoleStack {
  f: SessionFixture;
  browser: Browser;
  /** The operator token from the provisioned `devstack.json`. */
  operatorToken: string;
  demoMerchantId: string;
  url: string;
  close(): Promise<void>;
}

/** The browser-facing routes of the real service: the hosted page, the console, the report's CSV. */
export const consoleRoutes = (app: App) => [...webPages(app), ...consolePages(app), settlementCsvPage(app)];

export async function consoleStack(options: { players?: number } = {}): Promise<ConsoleStack> {
  const f = await sessionFixture({ players: options.players ?? 3, pages: consoleRoutes });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'console-'));
  const file = await provisionDemo(f.t.app, dir, [], f.t.http.url);
  const devstack = JSON.parse(readFileSync(file, 'utf8')) as {
    operator_token: string;
    merchant: { id: string };
  };
  const browser = noBrowser ? (undefined as never) : await launch();
  return {
    f,
    browser,
    operatorToken: devstack.operator_token,
    demoMerchantId: devstack.merchant.id,
    url: `${f.t.http.url}/console`,
    async close() {
      await browser?.close();
      await f.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the form as an operator would. */
export async function signIn(page: Page, url: string, token: string) {
  await page.goto(url);
  await page.getByLabel('Operator token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  // The header's read of the token's name and scopes is done: a test that revokes the token next would
  // otherwise race that read (its refusal signs the console out on its own).
  await page.getByText(/^Signed in as /).waitFor();
}

/** Opens a fully prefilled session through the signed REST API. */
export async function openSession(f: SessionFixture, body: Record<string, unknown>): Promise<StepBody> {
  const res = await f.call('/v1/cashier/init', { network: 'eth', token: 'USDC', ...body });
  if (res.status !== 200) throw new Error(`init: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Walks a session through wallet, approval and payment via REST, with real transactions. */
export async function pay(f: SessionFixture, first: StepBody, player: Wallet): Promise<string> {
  const step = async (action: string, value?: string) => {
    const res = await f.call('/v1/cashier/step', { session: first.session, action, value });
    if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  let current = first;
  let paid = '';
  while (current.step !== 'processing') {
    if (current.step === 'connect_wallet') current = await step('wallet_connected', player.address);
    else if (current.step === 'awaiting_approval')
      current = await step('approval_submitted', await sendWalletAction(player, current.wallet_action));
    else if (current.step === 'awaiting_payment') {
      paid = await sendWalletAction(player, current.wallet_action);
      current = await step('signature_submitted', paid);
    } else throw new Error(`unexpected step ${current.step}`);
  }
  return paid;
}

/** Runs the chain listener and mines until the session is settled. */
export async function settle(f: SessionFixture, session: string, maxBlocks = 40): Promise<void> {
  const listener = followerOf(f);
  for (let i = 0; i < maxBlocks; i++) {
    await listener.pass();
    const status = await f.call('/v1/cashier/status', { session });
    if (['completed', 'failed'].includes(status.body.status)) return;
    await mine(f, 1);
  }
  throw new Error('session did not settle');
}

/**
 * Pays the router for `first`'s amount but with an `order_ref` of no session, then lets the follower
 * record it: an unmatched payment. Its transaction hash (lowercase). It goes to a wallet of no
 * merchant, or with `toMerchant` to `first`'s payee (so an operator can attach it to a session).
 */
export async function payUnmatched(
  f: SessionFixture,
  first: StepBody,
  player: Wallet,
  options: { toMerchant?: boolean } = {},
): Promise<string> {
  let current = first;
  const step = async (action: string, value?: string) => {
    const res = await f.call('/v1/cashier/step', { session: first.session, action, value });
    if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  if (current.step === 'connect_wallet') current = await step('wallet_connected', player.address);
  if (current.step === 'awaiting_approval')
    current = await step('approval_submitted', await sendWalletAction(player, current.wallet_action));
  if (current.step !== 'awaiting_payment') throw new Error(`unexpected step ${current.step}`);
  const call = current.wallet_action!.params[0]!;
  const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
  const data = PAYMENT_ROUTER.encodeFunctionData('pay', [
    args[0],
    args[1],
    // By default to a wallet of no merchant: the settlement wallet's balance stays the report's.
    options.toMerchant ? args[2] : Wallet.createRandom().address,
    keccak256(toUtf8Bytes(`no session ${first.session}`)),
    args[4],
  ]);
  const hash = await sendWalletAction(player, { ...current.wallet_action!, params: [{ ...call, data }] });
  const listener = followerOf(f);
  for (let i = 0; i < 3; i++) {
    await mine(f, 3);
    await listener.pass();
  }
  return hash.toLowerCase();
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious or critical axe-core findings on the page as it is now (rule and where). */
export async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: {
        run(
          o: unknown,
        ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
