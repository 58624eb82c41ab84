import { Interface } from 'ethers';
import type { FailureReason } from './payout.entity.ts';

/**
 * What a failed router call means for the merchant (D14): the router's own errors, OpenZeppelin's
 * ERC-20 errors, the USDT-like token's errors, and the plain-string reverts of older tokens.
 */
const ERRORS = new Interface([
  'error PayoutExpired(uint256 deadline, uint256 timestamp)',
  'error BatchExpired(uint256 deadline, uint256 timestamp)',
  'error NonceAlreadyUsed(address merchant, uint256 nonce)',
  'error InvalidSignature()',
  'error SafeERC20FailedOperation(address token)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error InsufficientBalance(address account, uint256 balance, uint256 needed)',
  'error Blacklisted(address account)',
  'error Error(string message)',
]);

const BY_ERROR: Record<string, FailureReason> = {
  PayoutExpired: 'expired',
  BatchExpired: 'expired',
  NonceAlreadyUsed: 'nonce_used',
  InvalidSignature: 'invalid_signature',
  SafeERC20FailedOperation: 'transfer_failed',
  ERC20InsufficientAllowance: 'insufficient_allowance',
  InsufficientAllowance: 'insufficient_allowance',
  ERC20InsufficientBalance: 'insufficient_funds',
  InsufficientBalance: 'insufficient_funds',
  Blacklisted: 'transfer_failed',
};

/** The failure reason a revert stands for, from its data (preferred) or the node's message. */
export function revertReason(data: string | null, message = ''): FailureReason {
  if (data && data.length >= 10) {
    try {
      const error = ERRORS.parseError(data);
      if (error) {
        if (error.name === 'Error') return fromText(String(error.args[0]));
        return BY_ERROR[error.name] ?? 'reverted';
      }
    } catch {
      // Not one we know: fall through to the message.
    }
  }
  return fromText(message);
}

function fromText(text: string): FailureReason {
  if (/allowance/i.test(text)) return 'insufficient_allowance';
  if (/exceeds balance|insufficient balance|balance too low/i.test(text)) return 'insufficient_funds';
  if (/blacklist|blocked|frozen|transfer failed/i.test(text)) return 'transfer_failed';
  if (/expired/i.test(text)) return 'expired';
  return 'reverted';
}

/** Reasons worth retrying until the deadline: the merchant can still fix them (approve, top up). */
export const RETRYABLE: ReadonlySet<FailureReason> = new Set([
  'insufficient_allowance',
  'insufficient_funds',
  'transfer_failed',
  'reverted',
  // The nonce is used: by this very order (the follower will record it) or by another one (settled
  // `nonce_used` once the deadline is final); either way nothing more is sent.
  'nonce_used',
]);

/** `code: message`, the form relay notes carry so the code can be read back (see {@link noteReason}). */
export const noteOf = (reason: FailureReason, message: string) => `${reason}: ${message}`;

/**
 * What a relay note changes on a payout or batch item: the note, and the last concrete reason when
 * the note names one (never `expired`, which would hide it); undefined when it already says so.
 */
export function noteChange(
  current: { relayNote?: string | null; lastRelayReason?: FailureReason | null },
  reason: string,
): { relayNote: string; lastRelayReason?: FailureReason } | undefined {
  const code = noteReason(reason);
  const concrete = code && code !== 'expired' ? { lastRelayReason: code } : {};
  if (current.relayNote === reason && (!code || current.lastRelayReason === concrete.lastRelayReason))
    return undefined;
  return { relayNote: reason, ...concrete };
}

/** The failure reason at the start of a relay note, if any. */
export function noteReason(note: string | null | undefined): FailureReason | undefined {
  const code = note ? /^([a-z_]+):/.exec(note)?.[1] : undefined;
  return code && code in REASONS ? (code as FailureReason) : undefined;
}

const REASONS: Record<FailureReason, true> = {
  expired: true,
  invalid_signature: true,
  nonce_used: true,
  insufficient_allowance: true,
  insufficient_funds: true,
  transfer_failed: true,
  reverted: true,
};
