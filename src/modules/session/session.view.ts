import { encodeApprove } from '../../chains/evm/index.ts';
import type { TokenConfig } from '../../chains/networks.ts';
import { formatUnits, parseUnits } from '../../money.ts';
import { chainIdHex, PAYMENT_ROUTER, type SessionNetwork } from './session.chain.ts';
import type { OrderStatus, Session, Step } from './session.entity.ts';
import { t } from './session.i18n.ts';
import { type Action, STEP_STATUS, SUBMIT_ACTION } from './session.machine.ts';

/** Section 2.3 shapes, in GraphQL (camelCase) spelling; REST aliases them to snake_case. */
export interface StepOption {
  label: string;
  action: string;
  value: string;
  note?: string;
  disabled?: boolean;
  reason?: string;
}

export interface Component {
  type: 'heading' | 'text' | 'button_group' | 'input' | 'status' | 'spinner' | 'wallet_connect';
  text?: string;
  options?: StepOption[];
  name?: string;
  label?: string;
  placeholder?: string;
  action?: string;
  status?: 'info' | 'success' | 'error';
}

export interface WalletAction {
  method: string;
  params: unknown[];
  chainId?: string;
}

export interface StepResponse {
  step: Step;
  session: string;
  status: OrderStatus;
  components: Component[];
  walletAction?: WalletAction;
  submitAction?: Action;
}

/** One coin of the picker with the connected wallet's balance (section 3.2 rule 6). */
export interface CoinOffer {
  token: TokenConfig;
  balance: bigint | null;
  disabled?: 'insufficient_balance' | 'not_supported' | 'precision';
}

/** What rendering a step needs beyond the session row (the offered networks, the stored chain values). */
export interface ViewInputs {
  /** The networks offered at network_select. */
  networks?: SessionNetwork[];
  network?: SessionNetwork;
  offers?: CoinOffer[];
  balance?: bigint;
  /** Settlement wallet the router pays (awaiting_payment). */
  merchantWallet?: string;
}

const heading = (text: string): Component => ({ type: 'heading', text });
const text = (value: string): Component => ({ type: 'text', text: value });

/** What rendering reads of a session: the entity, or the status read's row (session.service.ts). */
export type SessionState = Pick<
  Session,
  | 'id'
  | 'step'
  | 'language'
  | 'network'
  | 'token'
  | 'amount'
  | 'wallet'
  | 'deadline'
  | 'orderRef'
  | 'payee'
  | 'view'
>;

/** What a step's view is drawn from: the session, the chain inputs and what follows from them. */
interface ViewContext {
  lang: string;
  session: SessionState;
  inputs: ViewInputs;
  network: ViewInputs['network'];
  token: TokenConfig | undefined;
  amountRaw: bigint | undefined;
  /** `{token}`, `{amount}`, `{network}` of the step texts. */
  params: { token: string; amount: string; network: string };
  changeWallet: Component;
  submitAction: StepResponse['submitAction'];
}

type StepView = Omit<StepResponse, 'step' | 'session' | 'status'>;

/** Each step's components, the action a form submits and the wallet request it asks for. */
const STEP_VIEWS: Record<Step, (v: ViewContext) => StepView> = {
  network_select: ({ lang, inputs }) => ({
    components: [
      heading(t(lang, 'network_select.heading')),
      {
        type: 'button_group',
        options: (inputs.networks ?? []).map((n) => ({
          label: n.id.toUpperCase(),
          action: 'select_network',
          value: n.id,
        })),
      },
    ],
  }),
  connect_wallet: ({ lang, params, network, submitAction }) => ({
    submitAction,
    components: [
      heading(t(lang, 'connect_wallet.heading')),
      text(t(lang, 'connect_wallet.text', params)),
      {
        type: 'wallet_connect',
        name: 'wallet',
        label: t(lang, 'connect_wallet.label'),
        action: 'wallet_connected',
      },
    ],
    ...(network
      ? { walletAction: { method: 'eth_requestAccounts', params: [], chainId: chainIdHex(network.chainId) } }
      : {}),
  }),
  token_select: ({ lang, inputs, changeWallet }) => ({
    components: [
      heading(t(lang, 'token_select.heading')),
      { type: 'button_group', options: (inputs.offers ?? []).map((o) => coinOption(lang, o)) },
      changeWallet,
    ],
  }),
  enter_amount: ({ lang, inputs, token, params, changeWallet }) => ({
    components: [
      heading(t(lang, 'enter_amount.heading')),
      ...(token && inputs.balance !== undefined
        ? [
            text(
              t(lang, 'enter_amount.text', {
                ...params,
                balance: formatUnits(inputs.balance, token.decimals),
              }),
            ),
          ]
        : []),
      {
        type: 'input',
        name: 'amount',
        label: t(lang, 'enter_amount.label', params),
        placeholder: '0.00',
        action: 'submit_amount',
      },
      changeWallet,
    ],
  }),
  awaiting_approval: ({ lang, session, network, token, amountRaw, params, changeWallet, submitAction }) => ({
    submitAction,
    components: [
      heading(t(lang, 'awaiting_approval.heading', params)),
      text(t(lang, 'awaiting_approval.text', params)),
      changeWallet,
    ],
    ...(network && token && amountRaw !== undefined && session.wallet
      ? {
          walletAction: sendTransaction(network, {
            from: session.wallet,
            to: token.address,
            data: encodeApprove(network.contracts.paymentRouter, amountRaw),
          }),
        }
      : {}),
  }),
  awaiting_payment: ({ lang, session, inputs, network, token, amountRaw, params, submitAction }) => ({
    submitAction,
    components: [
      heading(t(lang, 'awaiting_payment.heading')),
      text(t(lang, 'awaiting_payment.text', params)),
    ],
    ...(network &&
    token &&
    amountRaw !== undefined &&
    session.wallet &&
    inputs.merchantWallet &&
    session.deadline
      ? {
          walletAction: sendTransaction(network, {
            from: session.wallet,
            to: network.contracts.paymentRouter,
            data: PAYMENT_ROUTER.encodeFunctionData('pay', [
              token.address,
              amountRaw,
              inputs.merchantWallet,
              session.orderRef,
              BigInt(session.deadline),
            ]),
          }),
        }
      : {}),
  }),
  processing: ({ lang, submitAction }) => ({
    submitAction,
    components: [{ type: 'spinner' }, { type: 'status', status: 'info', text: t(lang, 'processing.text') }],
  }),
  completed: ({ lang }) => ({
    components: [{ type: 'status', status: 'success', text: t(lang, 'completed.text') }],
  }),
  failed: ({ lang }) => ({ components: [{ type: 'status', status: 'error', text: t(lang, 'failed.text') }] }),
  reverted: ({ lang }) => ({
    components: [{ type: 'status', status: 'error', text: t(lang, 'reverted.text') }],
  }),
};

/** Renders a session into its StepResponse. Pure: every chain value comes in `inputs`. */
export function renderStep(session: SessionState, inputs: ViewInputs = {}): StepResponse {
  const lang = session.language;
  const network = inputs.network;
  const token = network && session.token ? network.tokens.find((x) => x.symbol === session.token) : undefined;
  const view = STEP_VIEWS[session.step]({
    lang,
    session,
    inputs,
    network,
    token,
    amountRaw: token && session.amount ? parseUnits(session.amount, token.decimals) : undefined,
    params: { token: session.token ?? '', amount: session.amount ?? '', network: session.network ?? '' },
    changeWallet: {
      type: 'button_group',
      options: [{ label: t(lang, 'button.change_wallet'), action: 'change_wallet', value: '' }],
    },
    submitAction: SUBMIT_ACTION[session.step],
  });
  return { step: session.step, session: session.id, status: STEP_STATUS[session.step], ...view };
}

function coinOption(lang: string, offer: CoinOffer): StepOption {
  const option: StepOption = { label: offer.token.symbol, action: 'select_token', value: offer.token.symbol };
  if (offer.balance !== null) {
    option.note = t(lang, 'token_select.note', { amount: formatUnits(offer.balance, offer.token.decimals) });
  }
  if (offer.disabled) {
    option.disabled = true;
    option.reason = t(lang, `reason.${offer.disabled}`);
  }
  return option;
}

/** EIP-1193 `eth_sendTransaction` with the chain to switch to first. */
function sendTransaction(
  network: SessionNetwork,
  tx: { from: string; to: string; data: string },
): WalletAction {
  return {
    method: 'eth_sendTransaction',
    params: [{ from: tx.from, to: tx.to, data: tx.data, value: '0x0' }],
    chainId: chainIdHex(network.chainId),
  };
}
