import { ApiError, api, type StepResponse } from './api.ts';
import { tr } from './i18n.ts';
import { clearFieldError } from './render.ts';
import { framed, render, state, TERMINAL, token } from './state.ts';
import { returnUrl } from './view.ts';
import { explain } from './wallet.ts';

/**
 * How the page follows its session: every step, whatever brought it (an action's answer, a push, a
 * read), goes through `apply`; a terminal one ends the page, a gone link replaces it, and a failure is
 * shown with a way to try again.
 */

/** Seconds the outcome is shown before the redirect to `return_url`. */
const REDIRECT_SECONDS = 3;

type Message = 'cashier:ready' | 'cashier:completed' | 'cashier:failed' | 'cashier:close';

/** Tells the embedding window (if any) how things stand. */
export function post(type: Message): void {
  // No secret travels in these hints, and the page cannot know its embedder's origin: any parent may read them.
  if (framed) window.parent.postMessage({ source: 'crypto-cashier', type }, '*');
}

const announcer = document.getElementById('announce')!;

function announce(text: string): void {
  announcer.textContent = '';
  // A fresh text node after a tick makes screen readers announce a repeated message too.
  setTimeout(() => {
    announcer.textContent = text;
  }, 50);
}

const spoken = (step: StepResponse) =>
  (step.components ?? [])
    .filter((c) => c.type === 'heading' || c.type === 'status')
    .map((c) => c.text)
    .join('. ');

/** Takes a StepResponse from any source (action, push, read); re-renders when it differs. */
export function apply(next: StepResponse): void {
  if (state.ended || state.gone) return;
  const before = state.step;
  if (before && JSON.stringify(before) === JSON.stringify(next)) return;
  state.step = next;
  const changed = before?.step !== next.step;
  // The first step comes with the link info already read.
  if (changed && before) {
    state.error = undefined;
    state.choosing = undefined;
    state.noWallet = false;
    clearFieldError();
    // Network, coin and amount may have just been chosen; the link stops expiring once paid.
    api.link(token).then(
      (info) => {
        if (JSON.stringify(info) === JSON.stringify(state.info)) return;
        state.info = info;
        render();
      },
      () => {},
    );
  }
  render(changed && before !== undefined);
  // Time to the first rendered step, for the benchmark (bench/hosted.ts).
  if (!before) performance.mark('cashier:first-step');
  if (changed) announce(spoken(next));
  if (TERMINAL.has(next.step)) finish(next);
}

function finish(step: StepResponse): void {
  state.ended = true;
  state.live?.stop();
  post(step.status === 'completed' ? 'cashier:completed' : 'cashier:failed');
  const go = () => {
    const url = returnUrl();
    if (!url || framed) return;
    state.redirectIn = REDIRECT_SECONDS;
    render();
    const timer = setInterval(() => {
      state.redirectIn = (state.redirectIn ?? 1) - 1;
      if (state.redirectIn <= 0) {
        clearInterval(timer);
        location.assign(url);
      } else render();
    }, 1000);
  };
  // The return URL comes with the link info, which may still be on its way.
  if (state.info) go();
  else
    api.link(token).then(
      (info) => {
        state.info = info;
        go();
      },
      () => {},
    );
}

/** The link no longer opens a session (`not_found`) or has expired: that is the whole page now. */
export function gone(code: string): void {
  state.live?.stop();
  state.gone = code === 'expired' ? 'expired' : 'not_found';
  render(true);
  announce(tr(state.gone === 'expired' ? 'expired' : 'invalid'));
}

/** Shows what went wrong, in the player's words, with `retry` behind a button. */
export function fail(error: unknown, retry?: () => void) {
  if (error instanceof ApiError && (error.status === 404 || error.status === 410)) return gone(error.code);
  const text =
    error instanceof ApiError
      ? error.status === 0
        ? tr('offline')
        : tr('server_error', { message: error.message || error.code })
      : explain(error, state.step?.wallet_action?.chain_id ?? undefined);
  state.error = { text, retry };
  render();
}

/**
 * Whether an action taken at step `at` was refused only because the session has left that step
 * (the listener settled it, another tab moved it on): then the page shows where the session is, and
 * the refusal is no error. A newer step may already be here by push; otherwise it is read once.
 */
export async function overtaken(error: unknown, at: string | undefined): Promise<boolean> {
  if (!(error instanceof ApiError && error.code === 'invalid_action')) return false;
  if (state.step?.step !== at) return true;
  try {
    const now = await api.status(token);
    if (!now) return state.step?.step !== at;
    apply(now);
    return now.step !== at;
  } catch {
    return false;
  }
}
