import { AppError, validation } from '../../errors.ts';
import { RpcError } from './rpc/errors.ts';
import type { RpcTransport } from './rpc/transport.ts';
import { decodeSignedTransaction } from './tx-decode.ts';

/**
 * Broadcasts a signed transaction. Node rejections become `validation` errors with a message a
 * merchant can act on; an unreachable node is `unavailable`. Re-broadcasting the same bytes is safe:
 * "already known", or "nonce too low" because our own earlier attempt got mined, return the hash.
 */

/** Node rejection texts (geth, erigon, nethermind, anvil, besu wordings) and what to tell the client. */
const REJECTIONS: readonly [RegExp, string][] = [
  [
    /insufficient funds|InsufficientFunds|balance too low/i,
    'the sender cannot pay for gas and value (insufficient funds)',
  ],
  [/nonce too high|NonceTooHigh/i, 'nonce too high: earlier transactions of this sender are missing'],
  [
    /nonce too low|NonceTooLow|OldNonce|nonce has already been used/i,
    'nonce too low: this nonce was already used; rebuild the transaction',
  ],
  [
    /replacement transaction underpriced|ReplacementUnderpriced/i,
    'another transaction with this nonce is pending; it needs a higher fee to be replaced',
  ],
  [
    /underpriced|fee cap less than|max fee per gas less than block base fee|FeeTooLow/i,
    'fee too low for the network: rebuild the transaction',
  ],
  [/intrinsic gas too low|gas too low|IntrinsicGas/i, 'gas limit too low for this transaction'],
  [/exceeds block gas limit|GasLimitExceeded/i, 'gas limit exceeds the block gas limit'],
  [/chain ?id|EIP-?155|replay.protected/i, 'signed for another chain (or without replay protection)'],
];

const ALREADY_KNOWN =
  /already known|known transaction|already imported|AlreadyKnown|already in (the )?(mempool|pool)/i;

/** Whether a node's refusal of a broadcast says it has the very same transaction already. */
export const isAlreadyKnown = (message: string): boolean => ALREADY_KNOWN.test(message);
const NONCE_USED = /nonce too low|NonceTooLow|OldNonce|nonce has already been used/i;

/** Sends `raw`, which must be signed for `chainId`, and returns its hash. */
export async function broadcastTransaction(
  transport: RpcTransport,
  raw: string,
  chainId: number,
): Promise<string> {
  const { hash, chainId: signedFor } = decodeSignedTransaction(raw);
  // Nodes differ in whether they check this (anvil does not); a transaction signed for another chain,
  // or replayable on every chain, is never one this service meant to send here.
  if (signedFor !== chainId) {
    throw validation(
      signedFor === 0
        ? 'rejected: transaction is signed without a chain id (no replay protection)'
        : `rejected: transaction is signed for chain ${signedFor}, this network is chain ${chainId}`,
    );
  }
  try {
    const sent = await transport.request<string>('eth_sendRawTransaction', [raw]);
    if (typeof sent === 'string' && sent.toLowerCase() !== hash.toLowerCase()) {
      throw new AppError('unavailable', `node reported hash ${sent} for transaction ${hash}`);
    }
    return hash;
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (ALREADY_KNOWN.test(error.message)) return hash;
    // A retried send whose first attempt got through and was mined looks exactly like a reused nonce.
    if (
      NONCE_USED.test(error.message) &&
      (await transport.request('eth_getTransactionByHash', [hash])) !== null
    ) {
      return hash;
    }
    throw rejection(error);
  }
}

function rejection(error: RpcError): AppError {
  const known = REJECTIONS.find(([pattern]) => pattern.test(error.message));
  const message = known ? known[1] : 'transaction refused';
  return validation(`rejected by the network: ${message} (${error.message.slice(0, 200)})`, {
    reason: error.message,
  });
}
