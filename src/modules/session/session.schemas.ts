import { z } from 'zod';
import { httpUrl, positiveAmount, reference } from '../../lib/validation.ts';
import { ORDER_STATUSES, STEPS } from './session.entity.ts';

/**
 * Request and response schemas of the cashier routes, in GraphQL (camelCase) spelling. The GraphQL
 * inputs validate with the request schemas; the REST table documents both in OpenAPI.
 */

export const initRequest = z.object({
  playerId: reference.optional().describe('Echoed in the settlement webhook.'),
  externalOrderId: reference
    .optional()
    .describe('Idempotency key: same parameters return the original session, different ones are 409.'),
  callbackUrl: z
    .union([z.literal(''), httpUrl])
    .optional()
    .describe('Per-session webhook target; empty falls back to the merchant default.'),
  amount: positiveAmount.optional().describe('Prefill, whole units; skips enter_amount.'),
  network: z.string().min(1).max(64).optional().describe('Prefill; skips network_select.'),
  token: z.string().min(1).max(64).optional().describe('Prefill; requires network.'),
  language: z.string().optional().describe('en, ru or es; region ignored; anything else is English.'),
});
/** GraphQL hands absent optional fields over as null or undefined. */
export type InitRequest = { [K in keyof z.infer<typeof initRequest>]?: string | null };

export const stepRequest = z
  .object({
    session: z.string().min(1).max(64),
    action: z
      .string()
      .min(1)
      .max(64)
      .describe('Action of the current step (the step names it as submit_action or in its options).'),
    value: z.string().max(1024).optional().describe('Empty for actions that carry none.'),
  })
  // Examples are in REST spelling (they are copied into the OpenAPI document as they are).
  .meta({ examples: [{ session: 'cs_W1q2b3C4d5E6f7G8h9I0jQ', action: 'select_network', value: 'eth' }] });
export type StepRequest = { session: string; action: string; value?: string | null };

export const statusRequest = z.object({ session: z.string().min(1).max(64) });
export type StatusRequest = z.infer<typeof statusRequest>;

const option = z.object({
  label: z.string(),
  action: z.string(),
  value: z.string(),
  note: z.string().optional(),
  disabled: z.boolean().optional(),
  reason: z.string().optional(),
});

const component = z.object({
  type: z.enum(['heading', 'text', 'button_group', 'input', 'status', 'spinner', 'wallet_connect']),
  text: z.string().optional(),
  options: z.array(option).optional(),
  name: z.string().optional(),
  label: z.string().optional(),
  placeholder: z.string().optional(),
  action: z.string().optional(),
  status: z.enum(['info', 'success', 'error']).optional(),
});

/** Section 2.3 StepResponse as sent over REST (snake_case), with D11's `status`. */
export const stepResponse = z.object({
  step: z.enum(STEPS),
  session: z.string(),
  status: z.enum(ORDER_STATUSES),
  components: z.array(component),
  wallet_action: z
    .object({ method: z.string(), params: z.array(z.unknown()), chain_id: z.string().optional() })
    .optional()
    .describe('Forward untouched to the wallet (EIP-1193 request; switch to chain_id first).'),
  submit_action: z.string().optional(),
});
