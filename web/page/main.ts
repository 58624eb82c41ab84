import { ApiError, api, type Component, type LinkInfo, type StepResponse } from './api.ts';
import { h } from './dom.ts';
import { setLang, tr } from './i18n.ts';
import { startLive } from './live.ts';
import { clearFieldError, renderStep } from './render.ts';
import {
  availableWallets,
  checkAccount,
  type DiscoveredWallet,
  deepLinks,
  discoverWallets,
  type Eip1193,
  ensureChain,
  explain,
  requestAccount,
} from './wallet.ts';

/**
 * The hosted payment page: reads the link and its current step, renders the step's components,
 * runs wallet actions, follows live status, and at a terminal step tells the parent window and
 * (top level, with a return URL) sends the player back.
 */

const TERMINAL = new Set(['completed', 'failed', 'reverted']);
/** Steps where the link's expiry still applies (no payment reported yet). */
const OPEN_STEPS = new Set([
  'network_select',
  'connect_wallet',
  'token_select',
  'enter_amount',
  'awaiting_approval',
  'awaiting_payment',
]);
/** `approval_submitted` answers 503 until the approval is mined: retried this often, this long. */
const APPROVAL_RETRY_MS = 1_500;
const APPROVAL_RETRY_FOR_MS = 5 * 60_000;
/** Seconds the outcome is shown before the redirect to `return_url`. */
const REDIRECT_SECONDS = 3;

const token = decodeURIComponent(location.pathname.split('/').pop() ?? '');
const framed = window.parent !== window;
const root = document.getElementById('app')!;
const announcer = document.getElementById('announce')!;

interface State {
  info?: LinkInfo;
  step?: StepResponse;
  /** Link not valid / expired: the whole page is that message. */
  gone?: 'not_found' | 'expired';
  busy: boolean;
  error?: { text: string; retry?: () => void };
  notice?: string;
  /** Wallets to choose from, while the player chooses. */
  choosing?: { wallets: DiscoveredWallet[]; pick(wallet: Eip1193): void };
  noWallet?: boolean;
  wallet?: Eip1193;
  redirectIn?: number;
  ended?: boolean;
}

const state: State = { busy: false };
let live: { stop(): void } | undefined;

function post(type: 'cashier:ready' | 'cashier:completed' | 'cashier:failed' | 'cashier:close') {
  // No secret travels in these hints, and the page cannot know its embedder's origin: any parent may read them.
  if (framed) window.parent.postMessage({ source: 'crypto-cashier', type }, '*');
}

function announce(text: string) {
  announcer.textContent = '';
  // A fresh text node after a tick makes screen readers announce a repeated message too.
  setTimeout(() => {
    announcer.textContent = text;
  }, 50);
}

function summary(): HTMLElement | null {
  const info = state.info;
  if (!info) return null;
  const rows: [string, string][] = [];
  if (info.merchant_name) rows.push([tr('pay_to'), info.merchant_name]);
  if (info.order_reference) rows.push([tr('order'), info.order_reference]);
  if (info.network) rows.push([tr('network'), info.network.toUpperCase()]);
  if (info.token) rows.push([tr('token'), info.token]);
  if (info.amount) rows.push([tr('amount'), `${info.amount}${info.token ? ` ${info.token}` : ''}`]);
  // Once the order is settled, the transaction that paid it (or the one that reverted).
  if (info.tx_hash && TERMINAL.has(state.step?.step ?? '')) rows.push([tr('transaction'), info.tx_hash]);
  const timed = info.expires_at && !info.paid && OPEN_STEPS.has(state.step?.step ?? '');
  if (rows.length === 0 && !timed) return null;
  return h(
    'dl',
    { class: 'summary' },
    ...rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
    timed
      ? h('div', {}, h('dt', {}, tr('time_left')), h('dd', { id: 'time-left', role: 'timer' }, remaining()))
      : null,
  );
}

function remaining(): string {
  const ms = Math.max(0, Date.parse(state.info?.expires_at ?? '') - Date.now());
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A selector that finds the focused element again after a re-render (elements are rebuilt). */
function focusKey(el: Element | null): string | undefined {
  if (!el || el === document.body) return undefined;
  if (el.id) return `#${CSS.escape(el.id)}`;
  for (const attr of ['name', 'data-value', 'data-wallet', 'data-wallet-action', 'data-retry']) {
    const value = el.getAttribute(attr);
    if (value !== null) return `${el.tagName.toLowerCase()}[${attr}="${CSS.escape(value)}"]`;
  }
  return undefined;
}

function render(focusHeading = false) {
  // Keep what the player typed and where the focus was across a re-render.
  const typed = new Map([...root.querySelectorAll('input')].map((i) => [i.name, i.value]));
  const focused = focusKey(document.activeElement);
  const body: (Node | null | false)[] = [];
  if (state.gone) {
    body.push(
      h('h1', { id: 'step-heading', tabindex: -1 }, tr('title')),
      h(
        'p',
        { class: 'status status-error', 'data-gone': state.gone },
        tr(state.gone === 'expired' ? 'expired' : 'invalid'),
      ),
    );
  } else if (!state.step) {
    body.push(h('p', { class: 'loading' }, tr('loading')));
  } else {
    body.push(summary());
    body.push(
      renderStep(state.step, state.busy, {
        act: (action, value) => void act(action, value),
        connect: (c) => void connect(c),
        runWalletAction: () => void runWalletAction(),
      }),
    );
    if (state.choosing) body.push(chooser(state.choosing));
    if (state.noWallet) body.push(noWallet());
    if (state.busy) body.push(h('p', { class: 'notice' }, state.notice ?? tr('in_progress')));
    if (state.error) {
      const retry = state.error.retry;
      body.push(
        h(
          'div',
          { class: 'error', role: 'alert' },
          h('p', {}, state.error.text),
          retry
            ? h(
                'button',
                { type: 'button', class: 'secondary', 'data-retry': '', onclick: () => retry() },
                tr('try_again'),
              )
            : null,
        ),
      );
    }
    if (TERMINAL.has(state.step.step)) body.push(ending());
  }
  root.replaceChildren(...body.filter((x): x is Node => Boolean(x)));
  for (const input of root.querySelectorAll('input')) {
    const value = typed.get(input.name);
    if (value) input.value = value;
  }
  const again = focusHeading
    ? document.getElementById('step-heading')
    : focused && root.querySelector(focused);
  if (again instanceof HTMLElement && again !== document.activeElement) again.focus();
}

function ending(): HTMLElement {
  const url = returnUrl();
  if (url && !framed) {
    return h(
      'p',
      { class: 'ending' },
      state.redirectIn !== undefined ? `${tr('returning', { seconds: state.redirectIn })} ` : '',
      h('a', { href: url, 'data-return': '' }, tr('return_now')),
    );
  }
  return h('p', { class: 'ending' }, tr('close_hint'));
}

function chooser(choosing: NonNullable<State['choosing']>): HTMLElement {
  return h(
    'div',
    { class: 'chooser', role: 'group', 'aria-labelledby': 'chooser-title' },
    h('h2', { id: 'chooser-title' }, tr('choose_wallet')),
    ...choosing.wallets.map((w) =>
      h(
        'button',
        {
          type: 'button',
          class: 'option',
          'data-wallet': w.info.name,
          onclick: () => choosing.pick(w.provider),
        },
        w.info.icon?.startsWith('data:image/')
          ? h('img', { src: w.info.icon, alt: '', width: 24, height: 24 })
          : null,
        h('span', { class: 'label' }, w.info.name),
      ),
    ),
  );
}

function noWallet(): HTMLElement {
  return h(
    'div',
    { class: 'no-wallet', role: 'alert' },
    h('p', {}, tr('no_wallet')),
    h(
      'ul',
      {},
      ...deepLinks(location.href).map((l) =>
        h(
          'li',
          {},
          h(
            'a',
            { href: l.url, target: '_blank', rel: 'noopener noreferrer' },
            tr('open_in', { name: l.name }),
          ),
        ),
      ),
    ),
  );
}

/** Takes a StepResponse from any source (action, push, poll); re-renders when it differs. */
function apply(next: StepResponse) {
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
  if (changed) announce(texts(next));
  if (TERMINAL.has(next.step)) finish(next);
}

const texts = (step: StepResponse) =>
  (step.components ?? [])
    .filter((c) => c.type === 'heading' || c.type === 'status')
    .map((c) => c.text)
    .join('. ');

function returnUrl(): string | undefined {
  const raw = state.info?.return_url;
  if (!raw || !state.step) return undefined;
  const url = new URL(raw);
  url.searchParams.set('status', state.step.status === 'completed' ? 'completed' : 'failed');
  return url.toString();
}

function finish(step: StepResponse) {
  state.ended = true;
  live?.stop();
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

function gone(code: string) {
  live?.stop();
  state.gone = code === 'expired' ? 'expired' : 'not_found';
  render(true);
  announce(tr(state.gone === 'expired' ? 'expired' : 'invalid'));
}

function fail(error: unknown, retry?: () => void) {
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

async function act(action: string, value?: string) {
  try {
    if (action === 'change_wallet') state.wallet = undefined;
    apply(await busy(() => api.step(token, action, value)));
  } catch (error) {
    // A step that moved on meanwhile (another tab, the listener): show where the session is now.
    if (error instanceof ApiError && error.code === 'invalid_action')
      void api.status(token).then(apply, () => {});
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
    root.querySelector<HTMLButtonElement>('.chooser button')?.focus();
  });
}

async function connect(component: Component) {
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

async function runWalletAction() {
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
  await submitHash(step.submit_action, hash);
}

/** Sends the transaction hash; an approval not yet mined (503) is retried until it is. */
async function submitHash(action: string, hash: string) {
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
    if (error instanceof ApiError && error.code === 'invalid_action')
      void api.status(token).then(apply, () => {});
    fail(error, () => void submitHash(action, hash));
  }
}

async function start() {
  discoverWallets();
  render();
  try {
    const [info, step] = await Promise.all([api.link(token), api.status(token)]);
    state.info = info;
    setLang(info.language);
    document.title = tr('title');
    document.getElementById('brand')!.textContent = tr('brand');
    apply(step);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) gone(error.code);
    else fail(error, () => location.reload());
    post('cashier:ready');
    return;
  }
  post('cashier:ready');
  if (!state.ended) {
    live = startLive(token, {
      step: apply,
      gone,
      mode: (mode) => {
        document.body.dataset.live = mode;
        document.body.dataset.liveSettled = 'false';
      },
      settled: () => {
        document.body.dataset.liveSettled = 'true';
      },
    });
  }
  setInterval(() => {
    const el = document.getElementById('time-left');
    if (!el) return;
    el.textContent = remaining();
    // At zero the link is checked again: it answers 410 unless a payment arrived meanwhile.
    if (remaining() === '0:00' && !state.busy) void api.status(token).then(apply, (e) => fail(e));
  }, 1000);
  // On key up, so the key's events have all reached this frame before the embedder removes it.
  document.addEventListener('keyup', (event) => {
    if (event.key === 'Escape' && framed) post('cashier:close');
  });
}

void start();
