import { decodeApprove } from '../../chains/evm/index.ts';
import type { TokenConfig } from '../../chains/networks.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, isAppError, validation } from '../../errors.ts';
import { evmAddress, formatIssues, positiveAmount, txHash } from '../../lib/validation.ts';
import { formatUnits, parseUnits } from '../../money.ts';
import type { SessionNetwork } from './session.chain.ts';
import type { Session } from './session.entity.ts';
import {
  type Action,
  changeWalletResets,
  routePastWallet,
  STEP_STATUS,
  transitionFor,
  type ValueKind,
} from './session.machine.ts';
import { canonicalAmount, type SessionService } from './session.service.ts';

/**
 * The actions of the step machine. `applyAction` checks the transition table first (rule 5), then the
 * value's shape, then runs the action, which may read the chain. It mutates the locked session row;
 * the caller's transaction writes it.
 */

const VALUE_SCHEMAS = { address: evmAddress, amount: positiveAmount, tx_hash: txHash } as const;

export async function applyAction(
  service: SessionService,
  em: EntityManager,
  session: Session,
  action: string,
  value: string,
): Promise<void> {
  const transition = transitionFor(session.step, action);
  if (!transition) {
    const terminal = STEP_STATUS[session.step] === 'completed' || STEP_STATUS[session.step] === 'failed';
    throw new AppError(
      'invalid_action',
      terminal
        ? `session is ${session.step}; it accepts no more actions`
        : `action ${action} does not belong to step ${session.step}`,
    );
  }
  checkValue(transition.value, value);
  const next = await ACTIONS[transition.action](new StepContext(service, em, session), value);
  if (next && !transition.to.includes(next)) {
    throw new Error(`step machine: ${action} at ${session.step} led to ${next}, not in the table`);
  }
  if (next) {
    session.step = next;
    session.status = STEP_STATUS[next];
  }
}

function checkValue(kind: ValueKind, value: string): void {
  if (kind === 'none') {
    if (value !== '') throw validation('value: this action carries no value');
    return;
  }
  if (kind === 'option') {
    if (value === '') throw validation('value: required');
    return;
  }
  const result = VALUE_SCHEMAS[kind].safeParse(value);
  if (!result.success)
    throw validation(formatIssues(result.error.issues.map((i) => ({ ...i, path: ['value'] }))));
}

/** What every action needs: the session, its network and chain, and the service's lookups. */
class StepContext {
  constructor(
    readonly service: SessionService,
    readonly em: EntityManager,
    readonly session: Session,
  ) {}

  get chains() {
    return this.service.deps.chains;
  }

  network(): SessionNetwork {
    return this.chains.network(this.session.network!);
  }

  token(): TokenConfig {
    return this.chains.token(this.network(), this.session.token!);
  }

  /** Balance check (D4 details) then rule 2: approval only when the allowance is short. */
  async routeToPayment(amountRaw: bigint): Promise<'awaiting_approval' | 'awaiting_payment'> {
    const network = this.network();
    const token = this.token();
    const wallet = this.session.wallet!;
    const { balance, allowance } = await this.chains.balanceAndAllowance(network, token, wallet);
    if (balance < amountRaw) throw insufficientFunds(token, amountRaw, balance, wallet);
    return routePastWallet({
      token: true,
      amount: true,
      allowance: allowance !== null && allowance >= amountRaw,
    }) as 'awaiting_approval' | 'awaiting_payment';
  }

  amountRaw(): bigint {
    return parseUnits(this.session.amount!, this.token().decimals);
  }
}

type Handler = (c: StepContext, value: string) => Promise<Session['step'] | undefined>;

const ACTIONS: Record<Action, Handler> = {
  async select_network(c, value) {
    const offered = await c.service.offeredNetworks(c.em, c.session.merchant.id);
    if (!offered.some((n) => n.id === value))
      throw validation(`value: ${value} is not one of the offered networks`);
    c.session.network = value;
    return 'connect_wallet';
  },

  async wallet_connected(c, value) {
    const s = c.session;
    const network = c.network();
    s.wallet = value.toLowerCase();
    if (s.deadline === null || s.deadline === undefined) s.deadline = await deadlineFor(c, network);
    if (!s.token) return routePastWallet({ token: false, amount: false, allowance: false });
    if (!s.amount) return routePastWallet({ token: true, amount: false, allowance: false });
    return c.routeToPayment(c.amountRaw());
  },

  async select_token(c, value) {
    const s = c.session;
    const offers = await c.service.coinOffers(c.network(), s);
    const offer = offers.find((o) => o.token.symbol === value);
    if (!offer) throw validation(`value: ${value} is not one of the offered coins`);
    if (offer.disabled === 'insufficient_balance') {
      const required = s.amount ? parseUnits(s.amount, offer.token.decimals) : 1n;
      throw insufficientFunds(offer.token, required, offer.balance ?? 0n, s.wallet!);
    }
    if (offer.disabled)
      throw validation(`value: ${value} cannot be chosen (${offer.disabled.replace('_', ' ')})`);
    s.token = value;
    if (!s.amount) return 'enter_amount';
    return c.routeToPayment(c.amountRaw());
  },

  async submit_amount(c, value) {
    let amount: string;
    try {
      amount = canonicalAmount(value, c.token().decimals);
    } catch (error) {
      if (isAppError(error)) throw validation(error.message.replace(/^amount:/, 'value:'));
      throw error;
    }
    const next = await c.routeToPayment(parseUnits(amount, c.token().decimals));
    c.session.amount = amount;
    return next;
  },

  async approval_submitted(c, value) {
    const network = c.network();
    const token = c.token();
    const client = c.chains.client(network);
    const receipt = await client.getReceipt(value);
    // D11: not mined yet → retry later; mined and reverted → the approval granted nothing.
    if (!receipt) throw new AppError('unavailable', 'approval transaction is not mined yet; retry shortly');
    if (!receipt.success) throw new AppError('tx_reverted', 'approval transaction was mined and reverted');
    const raw = c.amountRaw();
    const { allowance } = await c.chains.balanceAndAllowance(network, token, c.session.wallet!);
    if (allowance === null || allowance < raw) {
      const tx = await client.getTransaction(value);
      const approve = tx?.data ? decodeApprove(tx.data) : null;
      const grants =
        tx?.from.toLowerCase() === c.session.wallet &&
        tx?.to?.toLowerCase() === token.address.toLowerCase() &&
        approve?.spender.toLowerCase() === network.contracts.paymentRouter.toLowerCase() &&
        approve.amount >= raw;
      // The approval says enough but the node does not show it yet (a lagging replica): retry.
      if (grants || allowance === null)
        throw new AppError('unavailable', 'allowance is not readable yet; retry shortly');
      throw new AppError('insufficient_allowance', 'the router may pull less than the amount', {
        required: formatUnits(raw, token.decimals),
        available: formatUnits(allowance, token.decimals),
        token: token.symbol,
        owner: c.session.wallet,
        spender: network.contracts.paymentRouter,
      });
    }
    c.session.approvalTxHash = value.toLowerCase();
    return 'awaiting_payment';
  },

  async signature_submitted(c, value) {
    const s = c.session;
    const hash = value.toLowerCase();
    if (s.step === 'processing') {
      // A retry of the report the session already has changes nothing; anything else is refused.
      if (hash === s.reportedTxHash || hash === s.txHash) return undefined;
      throw new AppError('invalid_action', 'a payment transaction was already reported for this session');
    }
    s.reportedTxHash = hash;
    s.reportedAt = c.service.clock();
    return 'processing';
  },

  async poll() {
    return undefined;
  },

  async change_wallet(c) {
    Object.assign(c.session, changeWalletResets(c.session));
    return 'connect_wallet';
  },
};

/**
 * The router deadline (D5), fixed when the wallet first connects: the session's expiry, in the chain's
 * own clock when that runs ahead of ours, so a router call is never refused early.
 */
async function deadlineFor(c: StepContext, network: SessionNetwork): Promise<number> {
  const head = await c.chains.client(network).getBlockHeader('latest');
  const nowSeconds = Math.floor(c.service.clock().getTime() / 1000);
  const remaining = Math.max(0, Math.floor(c.session.expiresAt.getTime() / 1000) - nowSeconds);
  return Math.max(nowSeconds, head?.timestamp ?? 0) + remaining;
}

/** D4: `insufficient_funds` with required/available/token/owner in whole units. */
function insufficientFunds(token: TokenConfig, required: bigint, available: bigint, owner: string): AppError {
  return new AppError('insufficient_funds', `the wallet holds less ${token.symbol} than the amount`, {
    required: formatUnits(required, token.decimals),
    available: formatUnits(available, token.decimals),
    token: token.symbol,
    owner,
  });
}
