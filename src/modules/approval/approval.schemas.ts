import { z } from 'zod';
import { positiveAmount } from '../../lib/validation.ts';

/** Request and response schemas of the approval routes (sections 2.7, 4.14-4.16), requests in camelCase. */

const common = {
  network: z.string().min(1).max(64),
  token: z.string().min(1).max(64),
  batch: z.boolean().optional().describe('The batch router instead of the single-payout router.'),
};

export const buildApprovalRequest = z
  .object({ ...common, amount: positiveAmount.describe('The cap to approve, whole units.') })
  .meta({ examples: [{ network: 'eth', token: 'USDT', amount: '10000' }] });

export const broadcastApprovalRequest = z
  .object({
    ...common,
    amount: positiveAmount.describe('The amount the approval was built for.'),
    signedTransaction: z
      .union([z.string().min(1).max(262_144), z.record(z.string(), z.unknown())])
      .optional()
      .describe(
        'EVM: the signed raw transaction, 0x hex. Tron: optionally the whole signed transaction (JSON).',
      ),
    rawTransaction: z
      .string()
      .min(1)
      .max(262_144)
      .optional()
      .describe('Tron: raw_transaction exactly as built.'),
    signature: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{130}$/, 'must be a 65-byte signature in hex')
      .optional()
      .describe('Tron: the signature over tx_id.'),
  })
  .meta({ examples: [{ network: 'eth', token: 'USDT', amount: '10000', signed_transaction: '0x02f8…' }] });

export const approvalStatusRequest = z
  .object({
    ...common,
    txHash: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex')
      .describe('From broadcast.'),
  })
  .meta({ examples: [{ network: 'eth', token: 'USDT', tx_hash: `0x${'ab'.repeat(32)}` }] });

export const builtApprovalResponse = z.object({
  network: z.string(),
  token: z.string(),
  amount: z.string(),
  spender: z.string().describe('The router to approve (T… on tron).'),
  source: z.string().describe('The payout wallet that signs.'),
  transaction: z
    .record(z.string(), z.unknown())
    .describe(
      'EVM: from, to, data, value, nonce, gas, gasPrice, chainId (hex strings). Tron: raw_transaction, tx_id (sign it), fee_limit, expiration.',
    ),
  wallet_action: z
    .object({ method: z.string(), params: z.array(z.unknown()), chain_id: z.string() })
    .optional()
    .describe('EVM: the same call as an EIP-1193 request.'),
});

export const broadcastResponse = z.object({ network: z.string(), token: z.string(), tx_hash: z.string() });

export const approvalStatusResponse = z.object({
  network: z.string(),
  token: z.string(),
  spender: z.string(),
  source: z.string(),
  tx_hash: z.string(),
  status: z.enum(['pending', 'confirmed', 'failed', 'not_found']),
  block: z.number().int().optional(),
  allowance: z.string().describe('What the router may pull now, whole units.'),
});
