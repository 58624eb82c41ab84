import type { EvmLog } from '../../chains/evm/index.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { parseUnits } from '../../money.ts';
import { SettlementWallet } from '../merchant/merchant.entity.ts';
import { PAYMENT_ROUTER, PAYMENT_TOPIC, type SessionNetwork } from './session.chain.ts';
import { Session } from './session.entity.ts';
import { type AcceptedPayment, recordPayments } from './session.settle.ts';

/** A router `Payment` event, decoded. */
export interface PaymentEvent {
  orderRef: string;
  token: string;
  payer: string;
  merchant: string;
  amount: bigint;
  log: EvmLog;
}

/** Decodes the router's `Payment` logs; anything else (other events, removed logs) is skipped. */
export function decodePayments(network: SessionNetwork, logs: readonly EvmLog[]): PaymentEvent[] {
  const router = network.contracts.paymentRouter.toLowerCase();
  const events: PaymentEvent[] = [];
  for (const log of logs) {
    if (log.removed || log.address.toLowerCase() !== router || log.topics[0] !== PAYMENT_TOPIC) continue;
    const parsed = PAYMENT_ROUTER.parseLog({ topics: log.topics, data: log.data });
    if (!parsed) continue;
    events.push({
      orderRef: String(parsed.args.orderRef).toLowerCase(),
      token: String(parsed.args.token).toLowerCase(),
      payer: String(parsed.args.payer).toLowerCase(),
      merchant: String(parsed.args.merchant).toLowerCase(),
      amount: parsed.args.amount as bigint,
      log,
    });
  }
  return events;
}

/**
 * Matches payments to sessions by `order_ref`, falling back to the transaction hash the session
 * reported, and records each acceptable one (D5: token, settlement wallet, network and amount at
 * least the session's). Runs inside the caller's transaction. Returns how many were recorded.
 */
export async function acceptPayments(
  em: EntityManager,
  network: SessionNetwork,
  logs: readonly EvmLog[],
  logger: Pick<Logger, 'warn' | 'debug'>,
): Promise<number> {
  const events = decodePayments(network, logs);
  if (events.length === 0) return 0;
  const sessions = await em.find(Session, {
    network: network.id,
    $or: [
      { orderRef: { $in: [...new Set(events.map((e) => e.orderRef))] } },
      { reportedTxHash: { $in: [...new Set(events.map((e) => e.log.transactionHash.toLowerCase()))] } },
    ],
  });
  if (sessions.length === 0) return 0;
  const byRef = new Map(sessions.map((s) => [s.orderRef, s]));
  const byReported = new Map(sessions.filter((s) => s.reportedTxHash).map((s) => [s.reportedTxHash!, s]));
  const wallets = await em.find(SettlementWallet, {
    network: network.id,
    merchant: { $in: [...new Set(sessions.map((s) => s.merchant.id))] },
  });
  const walletOf = new Map(wallets.map((w) => [w.merchant.id, w.address.toLowerCase()]));

  // At most one payment per session: the one it already has (seen again), else the first in chain order.
  const chosen = new Map<string, AcceptedPayment & { sessionId: string }>();
  for (const e of events) {
    const txHash = e.log.transactionHash.toLowerCase();
    const session = byRef.get(e.orderRef) ?? byReported.get(txHash);
    if (!session) continue;
    const why = mismatch(network, session, e, walletOf.get(session.merchant.id));
    if (why) {
      logger.debug?.('payment ignored for session', { session: session.id, tx: txHash, why });
      continue;
    }
    if (session.status === 'failed' || session.status === 'completed') {
      if (session.txHash !== txHash) {
        logger.warn('payment for a settled session', {
          session: session.id,
          tx: txHash,
          status: session.status,
        });
      }
      continue;
    }
    const previous = chosen.get(session.id);
    if (previous && (previous.txHash === session.txHash || session.txHash !== txHash)) continue;
    chosen.set(session.id, {
      sessionId: session.id,
      txHash,
      blockNumber: e.log.blockNumber,
      blockHash: e.log.blockHash,
      logIndex: e.log.logIndex,
      payer: e.payer,
      paidRaw: e.amount,
    });
  }
  return (await recordPayments(em, [...chosen.values()])).length;
}

/** Why a payment does not pay this session (D5), or null when it does. */
function mismatch(
  network: SessionNetwork,
  session: Session,
  e: PaymentEvent,
  settlementWallet: string | undefined,
): string | null {
  const token = network.tokens.find((t) => t.symbol === session.token);
  if (!token || !session.amount) return 'session has no coin or amount yet';
  if (token.address.toLowerCase() !== e.token) return 'another token';
  if (!settlementWallet || settlementWallet !== e.merchant) return 'another recipient';
  if (e.amount < parseUnits(session.amount, token.decimals)) return 'less than the session amount';
  return null;
}
