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

/** Renders a session into its StepResponse. Pure: every chain value comes in `inputs`. */
export function renderStep(session: SessionState, inputs: ViewInputs = {}): StepResponse {
  const lang = session.language;
  const changeWallet: Component = {
    type: 'button_group',
    options: [{ label: t(lang, 'button.change_wallet'), action: 'change_wallet', value: '' }],
  };
  const network = inputs.network;
  const token = network && session.token ? network.tokens.find((x) => x.symbol === session.token) : undefined;
  const amountRaw = token && session.amount ? parseUnits(session.amount, token.decimals) : undefined;
  const params = { token: session.token ?? '', amount: session.amount ?? '', network: session.network ?? '' };
  const base = { step: session.step, session: session.id, status: STEP_STATUS[session.step] };
  const submitAction = SUBMIT_ACTION[session.step];
  switch (session.step) {
    case 'network_select':
      return {
        ...base,
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
      };
    case 'connect_wallet':
      return {
        ...base,
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
          ? {
              walletAction: {
                method: 'eth_requestAccounts',
                params: [],
                chainId: chainIdHex(network.chainId),
              },
            }
          : {}),
      };
    case 'token_select':
      return {
        ...base,
        components: [
          heading(t(lang, 'token_select.heading')),
          { type: 'button_group', options: (inputs.offers ?? []).map((o) => coinOption(lang, o)) },
          changeWallet,
        ],
      };
    case 'enter_amount':
      return {
        ...base,
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
      };
    case 'awaiting_approval':
      return {
        ...base,
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
      };
    case 'awaiting_payment':
      return {
        ...base,
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
      };
    case 'processing':
      return {
        ...base,
        submitAction,
        components: [
          { type: 'spinner' },
          { type: 'status', status: 'info', text: t(lang, 'processing.text') },
        ],
      };
    case 'completed':
      return {
        ...base,
        components: [{ type: 'status', status: 'success', text: t(lang, 'completed.text') }],
      };
    case 'failed':
      return { ...base, components: [{ type: 'status', status: 'error', text: t(lang, 'failed.text') }] };
    case 'reverted':
      return { ...base, components: [{ type: 'status', status: 'error', text: t(lang, 'reverted.text') }] };
  }
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
