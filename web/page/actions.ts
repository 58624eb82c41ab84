import { ApiError, api, type Component } from './api.ts';
import { tr } from './i18n.ts';
import type { StepHandlers } from './render.ts';
import { apply, fail, overtaken } from './session.ts';
import { render, state, token } from './state.ts';
import { availableWallets, checkAccount, type Eip1193, ensureChain, requestAccount } from './wallet.ts';

/**
 * What the player does: choose and type (a step action), connect a wallet, and run the step's wallet
 * action, whose transaction hash goes back as the step's submit action.
 */

/** `approval_submitted` answers 503 until the approval is mined: retried this often, this long. */
const APPROVAL_RETRY_MS = 1_500;
const APPROVAL_RETRY_FOR_MS = 5 * 60_000;

/** The step components' handlers. */
export const handlers: StepHandlers = {
  act: (action, value) => void act(action, value),
  connect: (component) => void connect(component),
  runWalletAction: () => void runWalletAction(),
};

/** Runs `work` with the page marked busy (buttons disabled, `notice` shown). */
async function busy<T>(work: () => Promise<T>, notice?: string): Promise<T> {
  state.busy = true;
  state.notice = notice;
  state.error = undefined;
  render();
  try {
    return await work();
  } finally {
    state.busy = false;
    state.notice = undefined;
    render();
  }
}

async function act(action: string, value?: string): Promise<void> {
  const at = state.step?.step;
  try {
    if (action === 'change_wallet') state.wallet = undefined;
    apply(await busy(() => api.step(token, action, value)));
  } catch (error) {
    if (await overtaken(error, at)) return;
    fail(error, () => void act(action, value));
  }
}

/** The wallet to use: the one chosen earlier, the only one, or the player's choice among several. */
async function pickWallet(): Promise<Eip1193 | undefined> {
  if (state.wallet) return state.wallet;
  const wallets = availableWallets();
  if (wallets.length === 0) {
    state.noWallet = true;
    render();
    return undefined;
  }
  if (wallets.length === 1) return wallets[0]!.provider;
  return new Promise((resolve) => {
    state.choosing = {
      wallets,
      pick: (wallet) => {
        state.choosing = undefined;
        resolve(wallet);
      },
    };
    render();
    document.querySelector<HTMLButtonElement>('#app .chooser button')?.focus();
  });
}

async function connect(component: Component): Promise<void> {
  const wallet = await pickWallet();
  if (!wallet) return;
  try {
    const account = await busy(async () => {
      const account = await requestAccount(wallet);
      await ensureChain(wallet, state.step?.wallet_action?.chain_id);
      return account;
    }, tr('waiting_wallet'));
    state.wallet = wallet;
    await act(component.action ?? 'wallet_connected', account);
  } catch (error) {
    fail(error, () => void connect(component));
  }
}

async function runWalletAction(): Promise<void> {
  const step = state.step;
  const action = step?.wallet_action;
  if (!step || !action || !step.submit_action) return;
  const wallet = await pickWallet();
  if (!wallet) return;
  let hash: string;
  try {
    hash = await busy(async () => {
      const account = await requestAccount(wallet);
      await ensureChain(wallet, action.chain_id);
      // An account request is answered with the address itself; anything else is sent as given.
      if (action.method === 'eth_requestAccounts') return account;
      checkAccount(account, action.params);
      return (await wallet.request({ method: action.method, params: action.params })) as string;
    }, tr('waiting_wallet'));
    state.wallet = wallet;
  } catch (error) {
    return fail(error, () => void runWalletAction());
  }
  await submitHash(step.step, step.submit_action, hash);
}

/** Sends the transaction hash; an approval not yet mined (503) is retried until it is. */
async function submitHash(at: string, action: string, hash: string): Promise<void> {
  const until = Date.now() + APPROVAL_RETRY_FOR_MS;
  try {
    const next = await busy(async () => {
      for (;;) {
        try {
          return await api.step(token, action, hash);
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 503) || Date.now() > until) throw error;
          state.notice = tr('waiting_approval');
          render();
          await new Promise((r) => setTimeout(r, APPROVAL_RETRY_MS));
        }
      }
    }, tr('in_progress'));
    apply(next);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'tx_reverted')
      return fail(new Error('reverted'), () => void runWalletAction());
    // The listener may have settled the payment before its report arrived.
    if (await overtaken(error, at)) return;
    fail(error, () => void submitHash(at, action, hash));
  }
}
