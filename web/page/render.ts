import type { Component, StepOption, StepResponse } from './api.ts';
import { h } from './dom.ts';
import { tr } from './i18n.ts';

/** What the components can ask the page to do. */
export interface StepHandlers {
  /** An option or a form: the step's action with its value. */
  act(action: string, value?: string): void;
  /** A `wallet_connect` component: connect, then send its action with the address. */
  connect(component: Component): void;
  /** The step's `wallet_action`, then its `submit_action` with the transaction hash. */
  runWalletAction(): void;
}

const POSITIVE_DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** The amount field's message survives re-renders (a push or the link info arriving) until the step changes. */
let fieldError: string | undefined;

/** Forgets the field's message (the step changed). */
export function clearFieldError(): void {
  fieldError = undefined;
}

/** Renders a StepResponse's components in order (section 2.3), then its wallet action button. */
export function renderStep(step: StepResponse, busy: boolean, handlers: StepHandlers): HTMLElement {
  const section = h('section', {
    class: 'step',
    'data-step': step.step,
    'aria-busy': busy ? 'true' : undefined,
  });
  const components = step.components ?? [];
  const hasConnect = components.some((c) => c.type === 'wallet_connect');
  const walletButton =
    step.wallet_action && step.submit_action && !hasConnect
      ? h(
          'button',
          {
            type: 'button',
            class: 'primary',
            'data-wallet-action': '',
            disabled: busy,
            onclick: () => handlers.runWalletAction(),
          },
          tr('confirm_wallet'),
        )
      : null;
  // The wallet button goes after the step's texts, before trailing choices such as "Change wallet".
  let at = components.length;
  while (at > 0 && components[at - 1]!.type === 'button_group') at--;
  let headingDone = false;
  components.forEach((component, i) => {
    if (i === at && walletButton) section.append(walletButton);
    const el = renderComponent(component, busy, handlers, !headingDone);
    if (component.type === 'heading') headingDone = true;
    if (el) section.append(el);
  });
  if (at === components.length && walletButton) section.append(walletButton);
  return section;
}

function renderComponent(
  c: Component,
  busy: boolean,
  handlers: StepHandlers,
  first: boolean,
): HTMLElement | null {
  switch (c.type) {
    case 'heading':
      return h(first ? 'h1' : 'h2', first ? { id: 'step-heading', tabindex: -1 } : {}, c.text ?? '');
    case 'text':
      return h('p', {}, c.text ?? '');
    case 'button_group':
      return h(
        'div',
        { class: 'options', role: 'group', 'aria-labelledby': 'step-heading' },
        ...(c.options ?? []).map((o) => renderOption(o, busy, handlers)),
      );
    case 'input':
      return renderInput(c, busy, handlers);
    case 'status':
      return h('p', { class: `status status-${c.status ?? 'info'}` }, c.text ?? '');
    case 'spinner':
      return h('div', { class: 'spinner', 'aria-hidden': 'true' });
    case 'wallet_connect':
      return h(
        'button',
        {
          type: 'button',
          class: 'primary',
          name: c.name ?? undefined,
          disabled: busy,
          onclick: () => handlers.connect(c),
        },
        c.label ?? c.text ?? '',
      );
    default:
      // A component type this page does not know: its text, if any, is still shown.
      return c.text ? h('p', {}, c.text) : null;
  }
}

function renderOption(o: StepOption, busy: boolean, handlers: StepHandlers): HTMLElement {
  const reasonId = o.disabled && o.reason ? `reason-${o.value}` : undefined;
  // Disabled options stay focusable (aria-disabled) so a screen reader reaches them and their reason.
  return h(
    'button',
    {
      type: 'button',
      class: o.action === 'change_wallet' ? 'option secondary' : 'option',
      'data-value': o.value,
      'aria-disabled': o.disabled || busy ? 'true' : undefined,
      'aria-describedby': reasonId,
      onclick: () => {
        if (!o.disabled && !busy) handlers.act(o.action, o.value || undefined);
      },
    },
    h('span', { class: 'label' }, o.label),
    o.note ? h('span', { class: 'note' }, o.note) : null,
    reasonId ? h('span', { class: 'reason', id: reasonId }, o.reason ?? '') : null,
  );
}

function renderInput(c: Component, busy: boolean, handlers: StepHandlers): HTMLElement {
  // Stable ids: a re-render finds the focused field again by its id.
  const id = `field-${c.name ?? 'value'}`;
  const errorId = `${id}-error`;
  const input = h('input', {
    id,
    name: c.name ?? 'value',
    inputmode: 'decimal',
    autocomplete: 'off',
    placeholder: c.placeholder ?? undefined,
    required: true,
    'aria-describedby': errorId,
    'aria-invalid': fieldError ? 'true' : undefined,
  });
  const error = h('p', { class: 'field-error', id: errorId, 'aria-live': 'assertive' }, fieldError ?? '');
  const form = h(
    'form',
    {
      class: 'field',
      novalidate: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const value = input.value.trim().replace(',', '.');
        if (!POSITIVE_DECIMAL.test(value) || !/[1-9]/.test(value)) {
          fieldError = tr('bad_amount');
          error.textContent = fieldError;
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        fieldError = undefined;
        if (!busy && c.action) handlers.act(c.action, value);
      },
    },
    h('label', { for: id }, c.label ?? ''),
    input,
    error,
    h('button', { type: 'submit', class: 'primary', disabled: busy }, tr('continue')),
  );
  return form;
}
