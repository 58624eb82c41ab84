import type { LinkInfo } from './api.ts';
import { h } from './dom.ts';
import { type TextKey, tr } from './i18n.ts';
import { renderStep, type StepHandlers } from './render.ts';
import { framed, OPEN_STEPS, type State, state, TERMINAL } from './state.ts';
import { deepLinks } from './wallet.ts';

/**
 * The page drawn from its state: the order summary, the step (render.ts), the wallet chooser or the
 * no-wallet help, progress and error, and at the end the way back. What the player typed and where
 * the focus was survive a re-render.
 */

/** The order summary's rows, in order; a row without a value is left out. */
const SUMMARY: readonly [TextKey, (info: LinkInfo) => string | null | undefined][] = [
  ['pay_to', (info) => info.merchant_name],
  ['order', (info) => info.order_reference],
  ['network', (info) => info.network?.toUpperCase()],
  ['token', (info) => info.token],
  ['amount', (info) => info.amount && `${info.amount}${info.token ? ` ${info.token}` : ''}`],
  // Once the order is settled, the transaction that paid it (or the one that reverted).
  ['transaction', (info) => (TERMINAL.has(state.step?.step ?? '') ? info.tx_hash : undefined)],
];

/** Element attributes that find a rebuilt element again (after `id`). */
const FOCUS_KEYS = ['name', 'data-value', 'data-wallet', 'data-wallet-action', 'data-retry'];

/** Draws `root` from the state; the step's components call `handlers`. */
export function paint(root: HTMLElement, handlers: StepHandlers, focusHeading: boolean): void {
  const typed = new Map([...root.querySelectorAll('input')].map((i) => [i.name, i.value]));
  const focused = focusKey(document.activeElement);
  root.replaceChildren(...body(handlers).filter((x): x is Node => Boolean(x)));
  for (const input of root.querySelectorAll('input')) {
    const value = typed.get(input.name);
    if (value) input.value = value;
  }
  const again = focusHeading
    ? document.getElementById('step-heading')
    : focused && root.querySelector(focused);
  if (again instanceof HTMLElement && again !== document.activeElement) again.focus();
}

function body(handlers: StepHandlers): (Node | null | false | undefined)[] {
  if (state.gone) {
    return [
      h('h1', { id: 'step-heading', tabindex: -1 }, tr('title')),
      h(
        'p',
        { class: 'status status-error', 'data-gone': state.gone },
        tr(state.gone === 'expired' ? 'expired' : 'invalid'),
      ),
    ];
  }
  const step = state.step;
  if (!step) return [h('p', { class: 'loading' }, tr('loading'))];
  return [
    summary(),
    renderStep(step, state.busy, handlers),
    state.choosing && chooser(state.choosing),
    state.noWallet && noWallet(),
    state.busy && h('p', { class: 'notice' }, state.notice ?? tr('in_progress')),
    state.error && error(state.error),
    TERMINAL.has(step.step) && ending(),
  ];
}

function summary(): HTMLElement | null {
  const info = state.info;
  if (!info) return null;
  const rows = SUMMARY.flatMap(([key, value]) => {
    const v = value(info);
    return v ? [[tr(key), v] as const] : [];
  });
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

/** The link's time left, `m:ss`. */
export function remaining(): string {
  const ms = Math.max(0, Date.parse(state.info?.expires_at ?? '') - Date.now());
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A selector that finds the focused element again after a re-render (elements are rebuilt). */
function focusKey(el: Element | null): string | undefined {
  if (!el || el === document.body) return undefined;
  if (el.id) return `#${CSS.escape(el.id)}`;
  for (const attr of FOCUS_KEYS) {
    const value = el.getAttribute(attr);
    if (value !== null) return `${el.tagName.toLowerCase()}[${attr}="${CSS.escape(value)}"]`;
  }
  return undefined;
}

function error({ text, retry }: NonNullable<State['error']>): HTMLElement {
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('p', {}, text),
    retry
      ? h(
          'button',
          { type: 'button', class: 'secondary', 'data-retry': '', onclick: () => retry() },
          tr('try_again'),
        )
      : null,
  );
}

/** Where the player goes after the outcome: `return_url` with `status`, unless the link has none. */
export function returnUrl(): string | undefined {
  const raw = state.info?.return_url;
  if (!raw || !state.step) return undefined;
  const url = new URL(raw);
  url.searchParams.set('status', state.step.status === 'completed' ? 'completed' : 'failed');
  return url.toString();
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
