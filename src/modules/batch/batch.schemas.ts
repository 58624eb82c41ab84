import { z } from 'zod';
import { httpUrl, positiveAmount, reference } from '../../lib/validation.ts';
import { FAILURE_REASONS, PAYOUT_STATUSES } from '../payout/payout.entity.ts';
import { walletSignature } from '../payout/payout.schemas.ts';

/** Request and response schemas of the batch routes (sections 4.17-4.19), requests in camelCase. */

/** Items per batch (section 8). */
export const MAX_BATCH_ITEMS = 100;

const item = z.object({
  externalId: reference
    .optional()
    .describe('The item’s own idempotency key; shares the namespace of payouts.'),
  recipient: z.string().min(1).max(128).describe('0x + 40 hex on EVM networks; a T… address on tron.'),
  amount: positiveAmount.describe('Whole units.'),
});

export const createBatchRequest = z
  .object({
    externalId: reference.optional().describe('Batch idempotency key.'),
    network: z.string().min(1).max(64),
    token: z.string().min(1).max(64),
    callbackUrl: z
      .union([z.literal(''), httpUrl])
      .optional()
      .describe('Where each item’s webhook goes; empty falls back to the merchant default.'),
    items: z
      .array(item)
      .min(1, 'a batch needs at least one item')
      .max(MAX_BATCH_ITEMS, `a batch has at most ${MAX_BATCH_ITEMS} items`)
      // A property of the request alone, so it is refused before any network, router or wallet lookup.
      .superRefine((items, ctx) => {
        const seen = new Set<string>();
        for (const [index, { externalId }] of items.entries()) {
          if (!externalId) continue;
          if (seen.has(externalId))
            ctx.addIssue({
              code: 'custom',
              path: [index, 'externalId'],
              message: `"${externalId}" appears twice in the batch`,
            });
          seen.add(externalId);
        }
      }),
  })
  // Examples are in REST spelling (they are copied into the OpenAPI document as they are).
  .meta({
    examples: [
      {
        external_id: 'payroll-2026-11',
        network: 'eth',
        token: 'USDT',
        items: [
          {
            external_id: 'payroll-2026-11-1',
            recipient: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
            amount: '10',
          },
          {
            external_id: 'payroll-2026-11-2',
            recipient: '0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B',
            amount: '2.5',
          },
        ],
      },
    ],
  });
export type CreateBatchRequest = {
  externalId?: string | null;
  network: string;
  token: string;
  callbackUrl?: string | null;
  items: { externalId?: string | null; recipient: string; amount: string }[];
};

export const authorizeBatchRequest = z
  .object({
    batch: z.string().min(1).max(64),
    signature: walletSignature.describe(
      'eth_signTypedData_v4 over the batch typed_data; v 0/1 is normalised.',
    ),
  })
  .meta({ examples: [{ batch: 'pb_2nZsXQ0lHc1b4u9mJkq2Aw', signature: `0x${'1b'.repeat(64)}1b` }] });
export type AuthorizeBatchRequest = z.infer<typeof authorizeBatchRequest>;

export const batchStatusRequest = z.object({ batch: z.string().min(1).max(64) });

/** Derived batch status (section 3.5). */
export const BATCH_STATUSES = [
  'pending',
  'authorized',
  'processing',
  'completed',
  'partially_completed',
  'failed',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

const field = z.object({ name: z.string(), type: z.string() });

/** Section 2.5 as sent over REST. */
export const batchResponse = z.object({
  batch: z.string(),
  external_id: z.string().optional(),
  status: z.enum(BATCH_STATUSES),
  network: z.string(),
  token: z.string(),
  total: z.string(),
  deadline: z.number().int().describe('Unix seconds: signable and relayable until then.'),
  items: z.array(
    z.object({
      payout: z.string(),
      index: z.number().int(),
      external_id: z.string().optional(),
      recipient: z.string(),
      amount: z.string(),
      status: z.enum(PAYOUT_STATUSES),
      tx_hash: z.string().optional(),
      failure_reason: z.enum(FAILURE_REASONS).optional(),
    }),
  ),
  typed_data: z
    .object({
      types: z.object({
        EIP712Domain: z.array(field),
        PayoutBatch: z.array(field),
        PayoutItem: z.array(field),
      }),
      primaryType: z.literal('PayoutBatch'),
      domain: z.object({
        name: z.literal('BatchPayoutRouter'),
        version: z.literal('1'),
        chainId: z.number().int(),
        verifyingContract: z.string(),
      }),
      message: z.object({
        token: z.string(),
        merchant: z.string(),
        items: z.array(z.object({ recipient: z.string(), amount: z.string() })),
        nonce: z.string(),
        deadline: z.string(),
      }),
    })
    .optional()
    .describe('Present only on create: sign it exactly as returned.'),
});
