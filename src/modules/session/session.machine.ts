import type { OrderStatus, Step } from './session.entity.ts';

/**
 * The session step machine of section 3.2 as data: for every step, the actions it accepts, what
 * value each carries and which steps it may lead to. The service implements each action; this table
 * decides whether an action is allowed at all, so "an action that does not belong to the current
 * step" (rule 5) is one lookup, and a test can walk the table.
 */

export const ACTIONS = [
  'select_network',
  'wallet_connected',
  'select_token',
  'submit_amount',
  'approval_submitted',
  'signature_submitted',
  'poll',
  'change_wallet',
] as const;
export type Action = (typeof ACTIONS)[number];

/** What an action's `value` must be: nothing, one of the offered options, an address, an amount, a tx hash. */
export type ValueKind = 'none' | 'option' | 'address' | 'amount' | 'tx_hash';

export interface Transition {
  action: Action;
  value: ValueKind;
  /** Every step the action can lead to; which one depends on prefill, balance and allowance. */
  to: readonly Step[];
}

const changeWallet: Transition = { action: 'change_wallet', value: 'none', to: ['connect_wallet'] };
/** After the wallet or coin is known: on to the coin picker, the amount, the approval or the payment. */
const PAST_WALLET: readonly Step[] = [
  'token_select',
  'enter_amount',
  'awaiting_approval',
  'awaiting_payment',
];

export const TRANSITIONS: Readonly<Record<Step, readonly Transition[]>> = {
  network_select: [{ action: 'select_network', value: 'option', to: ['connect_wallet'] }],
  connect_wallet: [{ action: 'wallet_connected', value: 'address', to: PAST_WALLET }],
  token_select: [
    {
      action: 'select_token',
      value: 'option',
      to: ['enter_amount', 'awaiting_approval', 'awaiting_payment'],
    },
    changeWallet,
  ],
  enter_amount: [
    { action: 'submit_amount', value: 'amount', to: ['awaiting_approval', 'awaiting_payment'] },
    changeWallet,
  ],
  awaiting_approval: [
    { action: 'approval_submitted', value: 'tx_hash', to: ['awaiting_payment'] },
    changeWallet,
  ],
  // Rule 1: from here on the wallet is fixed.
  awaiting_payment: [{ action: 'signature_submitted', value: 'tx_hash', to: ['processing'] }],
  processing: [
    { action: 'poll', value: 'none', to: ['processing', 'completed', 'failed', 'reverted'] },
    // Only as an idempotent repeat of the hash already reported (a client retry).
    { action: 'signature_submitted', value: 'tx_hash', to: ['processing'] },
  ],
  // Rule 4: terminal.
  completed: [],
  failed: [],
  reverted: [],
};

/** The order status each step implies (D11: every StepResponse carries it). */
export const STEP_STATUS: Readonly<Record<Step, OrderStatus>> = {
  network_select: 'pending',
  connect_wallet: 'pending',
  token_select: 'pending',
  enter_amount: 'pending',
  awaiting_approval: 'pending',
  awaiting_payment: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  reverted: 'failed',
};

export const TERMINAL_STEPS: readonly Step[] = ['completed', 'failed', 'reverted'];

/** The submit action a step names in its response (the action the wallet result goes back with). */
export const SUBMIT_ACTION: Partial<Record<Step, Action>> = {
  connect_wallet: 'wallet_connected',
  awaiting_approval: 'approval_submitted',
  awaiting_payment: 'signature_submitted',
  processing: 'poll',
};

/** The transition of `action` at `step`, or undefined when the action does not belong there. */
export function transitionFor(step: Step, action: string): Transition | undefined {
  return TRANSITIONS[step].find((t) => t.action === action);
}

/** Section 3.3: where a session starts, by what init prefilled. */
export const PREFILL_START: readonly {
  when: 'nothing' | 'network' | 'network+token' | 'network+token+amount';
  step: Step;
}[] = [
  { when: 'nothing', step: 'network_select' },
  { when: 'network', step: 'connect_wallet' },
  { when: 'network+token', step: 'connect_wallet' },
  { when: 'network+token+amount', step: 'connect_wallet' },
];

export function startStep(prefill: {
  network?: string | null;
  token?: string | null;
  amount?: string | null;
}): Step {
  const when = !prefill.network
    ? 'nothing'
    : !prefill.token
      ? 'network'
      : !prefill.amount
        ? 'network+token'
        : 'network+token+amount';
  return PREFILL_START.find((s) => s.when === when)!.step;
}

/**
 * Where the flow stands once the wallet is connected, by what is already known (rule 6: the coin
 * picker comes after the wallet; rule 2: approval skipped when the allowance suffices). Read top to
 * bottom: the first missing fact names the step.
 */
export const PAST_WALLET_ROUTE: readonly { missing: 'token' | 'amount' | 'allowance' | null; step: Step }[] =
  [
    { missing: 'token', step: 'token_select' },
    { missing: 'amount', step: 'enter_amount' },
    { missing: 'allowance', step: 'awaiting_approval' },
    { missing: null, step: 'awaiting_payment' },
  ];

export function routePastWallet(known: { token: boolean; amount: boolean; allowance: boolean }): Step {
  const missing = !known.token ? 'token' : !known.amount ? 'amount' : !known.allowance ? 'allowance' : null;
  return PAST_WALLET_ROUTE.find((r) => r.missing === missing)!.step;
}

/**
 * Rule 1: what `change_wallet` forgets. The wallet always; a coin or amount the player chose (it is
 * asked again for the new wallet); never what init prefilled.
 */
export function changeWalletResets(s: { prefillToken?: string | null; prefillAmount?: string | null }) {
  return {
    wallet: null,
    walletBlock: null,
    approvalTxHash: null,
    ...(s.prefillToken ? {} : { token: null }),
    ...(s.prefillAmount ? {} : { amount: null }),
  };
}
