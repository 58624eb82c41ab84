import { z } from 'zod';
import { httpUrl, positiveAmount, reference } from '../../lib/validation.ts';
import { FAILURE_REASONS, PAYOUT_STATUSES } from './payout.entity.ts';

/**
 * Request and response schemas of the single-payout routes (sections 4.11-4.13), in GraphQL
 * (camelCase) spelling for requests. GraphQL inputs validate with them; OpenAPI documents them.
 */

export const createPayoutRequest = z
  .object({
    externalId: reference
      .optional()
      .describe('Idempotency key: same parameters return the same payout and order; different ones are 409.'),
    network: z.string().min(1).max(64),
    token: z.string().min(1).max(64).describe('A token symbol of the network; native coins are refused.'),
    amount: positiveAmount.describe('Whole units, e.g. "125.50".'),
    recipient: z.string().min(1).max(128).describe('0x + 40 hex on EVM networks; a T… address on tron.'),
    callbackUrl: z
      .union([z.literal(''), httpUrl])
      .optional()
      .describe('Per-payout webhook target; empty falls back to the merchant default.'),
  })
  // Examples are in REST spelling (they are copied into the OpenAPI document as they are).
  .meta({
    examples: [
      {
        external_id: 'withdrawal-1042',
        network: 'eth',
        token: 'USDT',
        amount: '125.50',
        recipient: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      },
    ],
  });
export type CreatePayoutRequest = {
  externalId?: string | null;
  network: string;
  token: string;
  amount: string;
  recipient: string;
  callbackUrl?: string | null;
};

/** A 65-byte EIP-712 signature in hex (section 8), as wallets return it. */
export const walletSignature = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{130}$/, 'must be a 65-byte signature: 0x followed by 130 hex characters');

export const authorizePayoutRequest = z
  .object({
    payout: z.string().min(1).max(64),
    signature: walletSignature.describe(
      'eth_signTypedData_v4 over the typed_data of create; v 0/1 is normalised.',
    ),
  })
  .meta({ examples: [{ payout: 'po_9fQ2m1cKx0aP3dZl8u4eVw', signature: `0x${'1b'.repeat(64)}1b` }] });
export type AuthorizePayoutRequest = z.infer<typeof authorizePayoutRequest>;

export const payoutStatusRequest = z.object({ payout: z.string().min(1).max(64) });
export type PayoutStatusRequest = z.infer<typeof payoutStatusRequest>;

const field = z.object({ name: z.string(), type: z.string() });

/** Section 2.4's `typed_data` of a single payout. */
export const payoutTypedData = z.object({
  types: z.object({ EIP712Domain: z.array(field), PayoutOrder: z.array(field) }),
  primaryType: z.literal('PayoutOrder'),
  domain: z.object({
    name: z.literal('PayoutRouter'),
    version: z.literal('1'),
    chainId: z.number().int(),
    verifyingContract: z.string(),
  }),
  message: z.object({
    token: z.string(),
    merchant: z.string(),
    recipient: z.string(),
    amount: z.string(),
    nonce: z.string(),
    deadline: z.string(),
  }),
});

/** Section 2.4 PayoutResponse as sent over REST. */
export const payoutResponse = z.object({
  payout: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  external_id: z.string().optional(),
  network: z.string(),
  token: z.string(),
  amount: z.string(),
  recipient: z.string(),
  tx_hash: z.string().optional().describe('Relay transaction; present once submitted.'),
  failure_reason: z
    .enum(FAILURE_REASONS)
    .optional()
    .describe('Why a failed payout failed; merchants can branch on it.'),
  deadline: z.number().int().describe('Unix seconds: the order is signable and relayable until then.'),
  typed_data: payoutTypedData.optional().describe('Present only on create: sign it exactly as returned.'),
});
