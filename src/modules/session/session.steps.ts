import { decodeApprove } from '../../chains/evm/index.ts';
import type { TokenConfig } from '../../chains/networks.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, validation } from '../../errors.ts';
import { evmAddress, formatIssues, positiveAmount, txHash } from '../../lib/validation.ts';
import { formatUnits, parseUnits } from '../../money.ts';
import { canonicalAmount } from './session.amount.ts';
import type { SessionChains, SessionNetwork } from './session.chain.ts';
import type { Session, SessionView, Step } from './session.entity.ts';
import {
  type Action,
  changeWalletResets,
  routePastWallet,
  STEP_STATUS,
  transitionFor,
  type ValueKind,
} from './session.machine.ts';
import type { SessionFields } from './session.transition.ts';
import type { CoinOffer } from './session.view.ts';

/**
 * The actions of the step machine. `planAction` checks the transition table first (rule 5), then the
 * value's shape, then runs the action, which may read the chain and the ledger. It changes nothing:
 * it returns the fields to write, and the caller writes them through the transition function,
 * guarded by the version it read. No row is locked while the chain is read.
 */

/** What the actions need from the session service. */
export interface StepDeps {
  chains: SessionChains;
  clock(): Date;
  /** Networks the merchant can take a session deposit on. */
  offeredNetworks(em: EntityManager, merchantId: string): Promise<SessionNetwork[]>;
  /** The merchant's settlement wallet on `network` now (pinned as the session's payee). */
  settlementWallet(em: EntityManager, merchantId: string, network: SessionNetwork): Promise<string>;
  /** The coin picker with the wallet's balances, read from the chain. */
  coinOffers(network: SessionNetwork, session: Pick<Session, 'wallet' | 'amount'>): Promise<CoinOffer[]>;
}

/** The fields an action changes; undefined when it changes nothing (a poll, a repeated report). */
export type StepPlan = Partial<SessionFields> | undefined;

const VALUE_SCHEMAS = { address: evmAddress, amount: positiveAmount, tx_hash: txHash } as const;

export async function planAction(
  deps: StepDeps,
  em: EntityManager,
  session: Session,
  action: string,
  value: string,
): Promise<StepPlan> {
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
  const c = new StepContext(deps, em, session);
  const next = await ACTIONS[transition.action](c, value);
  if (!next) return undefined;
  if (!transition.to.includes(next)) {
    throw new Error(`step machine: ${action} at ${session.step} led to ${next}, not in the table`);
  }
  // The chain values a step shows are read when it is entered; status reads never call the chain.
  if (next !== 'token_select' && next !== 'enter_amount') c.draft.view = null;
  return { ...c.draft, step: next, status: STEP_STATUS[next] };
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

/** What every action needs: the session as read, the fields it changes so far, and the lookups. */
class StepContext {
  readonly draft: Partial<SessionFields> = {};

  constructor(
    readonly deps: StepDeps,
    readonly em: EntityManager,
    readonly session: Session,
  ) {}

  /** A field as it will be after this action: the draft's value, else the session's. */
  get<K extends 'network' | 'token' | 'amount' | 'wallet'>(key: K): Session[K] {
    return (key in this.draft ? this.draft[key] : this.session[key]) as Session[K];
  }

  network(): SessionNetwork {
    return this.deps.chains.network(this.get('network')!);
  }

  token(): TokenConfig {
    return this.deps.chains.token(this.network(), this.get('token')!);
  }

  /** Balance check (D4 details) then rule 2: approval only when the allowance is short. */
  async routeToPayment(amountRaw: bigint): Promise<'awaiting_approval' | 'awaiting_payment'> {
    const token = this.token();
    const wallet = this.get('wallet')!;
    const { balance, allowance } = await this.deps.chains.balanceAndAllowance(this.network(), token, wallet);
    if (balance < amountRaw) throw insufficientFunds(token, amountRaw, balance, wallet);
    return routePastWallet({
      token: true,
      amount: true,
      allowance: allowance !== null && allowance >= amountRaw,
    }) as 'awaiting_approval' | 'awaiting_payment';
  }

  amountRaw(): bigint {
    return parseUnits(this.get('amount')!, this.token().decimals);
  }

  /** The picker as the step will show it. */
  async offers(): Promise<CoinOffer[]> {
    return this.deps.coinOffers(this.network(), { wallet: this.get('wallet'), amount: this.get('amount') });
  }
}

type Handler = (c: StepContext, value: string) => Promise<Step | undefined>;

const ACTIONS: Record<Action, Handler> = {
  async select_network(c, value) {
    const offered = await c.deps.offeredNetworks(c.em, c.session.merchant.id);
    const network = offered.find((n) => n.id === value);
    if (!network) throw validation(`value: ${value} is not one of the offered networks`);
    c.draft.network = value;
    c.draft.payee = (await c.deps.settlementWallet(c.em, c.session.merchant.id, network)).toLowerCase();
    return 'connect_wallet';
  },

  async wallet_connected(c, value) {
    const s = c.session;
    c.draft.wallet = value.toLowerCase();
    const head = await c.deps.chains.client(c.network()).getBlockHeader('latest');
    c.draft.walletBlock = await connectBlock(c, head?.number ?? null);
    if (s.deadline === null || s.deadline === undefined)
      c.draft.deadline = deadlineFor(c, head?.timestamp ?? 0);
    if (!s.token) {
      c.draft.view = viewOf(await c.offers());
      return routePastWallet({ token: false, amount: false, allowance: false });
    }
    if (!s.amount) {
      const [balance] = await c.deps.chains.balances(c.network(), [c.token()], c.draft.wallet);
      c.draft.view = balance === null || balance === undefined ? null : { balance: balance.toString() };
      return routePastWallet({ token: true, amount: false, allowance: false });
    }
    return c.routeToPayment(c.amountRaw());
  },

  async select_token(c, value) {
    const offers = await c.offers();
    const offer = offers.find((o) => o.token.symbol === value);
    if (!offer) throw validation(`value: ${value} is not one of the offered coins`);
    if (offer.disabled === 'insufficient_balance') {
      const amount = c.get('amount');
      const required = amount ? parseUnits(amount, offer.token.decimals) : 1n;
      throw insufficientFunds(offer.token, required, offer.balance ?? 0n, c.get('wallet')!);
    }
    if (offer.disabled)
      throw validation(`value: ${value} cannot be chosen (${offer.disabled.replace('_', ' ')})`);
    c.draft.token = value;
    if (!c.get('amount')) {
      c.draft.view = offer.balance === null ? null : { balance: offer.balance.toString() };
      return 'enter_amount';
    }
    return c.routeToPayment(c.amountRaw());
  },

  async submit_amount(c, value) {
    const amount = canonicalAmount(value, c.token().decimals, 'value');
    const next = await c.routeToPayment(parseUnits(amount, c.token().decimals));
    c.draft.amount = amount;
    return next;
  },

  async approval_submitted(c, value) {
    const network = c.network();
    const token = c.token();
    const wallet = c.get('wallet')!;
    const client = c.deps.chains.client(network);
    const receipt = await client.getReceipt(value);
    // D11: not mined yet → retry later; mined and reverted → the approval granted nothing.
    if (!receipt) throw new AppError('unavailable', 'approval transaction is not mined yet; retry shortly');
    if (!receipt.success) throw new AppError('tx_reverted', 'approval transaction was mined and reverted');
    const raw = c.amountRaw();
    const { allowance } = await c.deps.chains.balanceAndAllowance(network, token, wallet);
    if (allowance === null || allowance < raw) {
      const tx = await client.getTransaction(value);
      const approve = tx?.data ? decodeApprove(tx.data) : null;
      const grants =
        tx?.from.toLowerCase() === wallet &&
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
        owner: wallet,
        spender: network.contracts.paymentRouter,
      });
    }
    c.draft.approvalTxHash = value.toLowerCase();
    return 'awaiting_payment';
  },

  async signature_submitted(c, value) {
    const s = c.session;
    const hash = value.toLowerCase();
    if (s.step === 'processing') {
      // A retry of the report the session already has changes nothing; anything else is refused.
      if (hash === s.reportedTxHash || hash === s.payment?.txHash) return undefined;
      throw new AppError('invalid_action', 'a payment transaction was already reported for this session');
    }
    await checkReportedPayment(c.em, s, hash);
    // A hash the node does not know (pending or mined) is a typo or not broadcast yet: nothing to
    // watch. Right after a broadcast a node may not show it for a moment, so the player retries.
    if (!(await c.deps.chains.client(c.network()).getTransaction(hash)))
      throw new AppError('unavailable', `transaction ${hash} is not known to the network yet; retry shortly`);
    c.draft.reportedTxHash = hash;
    c.draft.reportedAt = c.deps.clock();
    return 'processing';
  },

  async poll() {
    return undefined;
  },

  async change_wallet(c) {
    Object.assign(c.draft, changeWalletResets(c.session));
    return 'connect_wallet';
  },
};

/**
 * A reported transaction the ledger already knows must be able to pay this session: not a payment
 * another session holds or an operator decided on, not one to another wallet, and (unless it carries
 * this session's `order_ref`) not one mined before the session's wallet was connected, which the
 * follower would never give it (session.match.ts). One the ledger does not know yet is the follower's
 * to judge when it gets there.
 */
async function checkReportedPayment(em: EntityManager, s: Session, hash: string): Promise<void> {
  const rows = await em.execute<
    {
      recipient: string;
      order_ref: string | null;
      block_number: string;
      claimed_by: string | null;
      decided: string | null;
    }[]
  >(
    `select p.recipient, p.order_ref, p.block_number, c.id as claimed_by, r.action as decided
       from payments p left join sessions c on c.payment_id = p.id
       left join payment_resolutions r on r.payment_id = p.id
      where p.network = ? and p.tx_hash = ?`,
    [s.network, hash],
  );
  if (rows.length === 0) return;
  const open = rows.filter((r) => r.claimed_by === s.id || (r.claimed_by === null && r.decided === null));
  if (open.length === 0) {
    throw validation(
      rows.some((r) => r.claimed_by)
        ? `value: transaction ${hash} already paid another session`
        : `value: transaction ${hash} was already settled by an operator`,
    );
  }
  const toPayee = open.filter((r) => r.recipient === s.payee);
  if (toPayee.length === 0)
    throw validation(`value: transaction ${hash} pays another wallet than this session's`);
  const sentForIt = (r: (typeof rows)[number]) =>
    r.claimed_by === s.id ||
    r.order_ref === s.orderRef ||
    (s.walletBlock != null && Number(r.block_number) > s.walletBlock);
  if (!toPayee.some(sentForIt))
    throw validation(`value: transaction ${hash} was mined before this session's wallet was connected`);
}

/** The coin picker as stored on the session (base units as strings). */
function viewOf(offers: CoinOffer[]): SessionView {
  return {
    offers: offers.map((o) => ({
      symbol: o.token.symbol,
      balance: o.balance === null ? null : o.balance.toString(),
      ...(o.disabled ? { disabled: o.disabled } : {}),
    })),
  };
}

/**
 * The router deadline (D5), fixed when the wallet first connects: the session's expiry, in the chain's
 * own clock (`chainNow`, the head's timestamp) when that runs ahead of ours, so a router call is never
 * refused early.
 */
function deadlineFor(c: StepContext, chainNow: number): number {
  const nowSeconds = Math.floor(c.deps.clock().getTime() / 1000);
  const remaining = Math.max(0, Math.floor(c.session.expiresAt.getTime() / 1000) - nowSeconds);
  return Math.max(nowSeconds, chainNow) + remaining;
}

/**
 * The chain's head as the wallet is connected: the newest of the node's head and the follower's (a
 * lagging replica must not make a transaction mined before the connect look sent after it). Where
 * neither is known, the connect cannot vouch for any reported transaction: the hash fallback then
 * claims nothing for this session.
 */
async function connectBlock(c: StepContext, nodeHead: number | null): Promise<number | null> {
  const [row] = await c.em.execute<{ head_number: string | null }[]>(
    'select head_number from chain_followers where network = ?',
    [c.network().id],
  );
  const followed = row?.head_number == null ? null : Number(row.head_number);
  if (nodeHead === null) return followed;
  return followed === null ? nodeHead : Math.max(nodeHead, followed);
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
