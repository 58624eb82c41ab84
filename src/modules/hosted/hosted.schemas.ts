import { z } from 'zod';
import { httpUrl } from '../../lib/validation.ts';
import { initRequest } from '../session/session.schemas.ts';

/** Request and response schemas of `/v1/hpp/*` (sections 2.2, 4.6-4.8), GraphQL (camelCase) spelling. */

export const hostedCreateRequest = initRequest.extend({
  externalOrderId: initRequest.shape.externalOrderId.describe(
    'Idempotency key: a repeat with the same parameters returns the same session with a fresh token (the earlier link stops working); other parameters are 409.',
  ),
  returnUrl: httpUrl
    .optional()
    .describe(
      'Where the page sends the player after a terminal step, with ?status=completed|failed appended.',
    ),
});

/** The hosted token as the page sends it (the last path segment of its URL). */
const hostedToken = z.string().min(1).max(128).describe('The token from the page URL (/p/{token}).');

export const hostedStepRequest = z
  .object({
    token: hostedToken,
    action: z
      .string()
      .min(1)
      .max(64)
      .describe('Action of the current step (the step names it as submit_action or in its options).'),
    value: z.string().max(1024).optional().describe('Empty for actions that carry none.'),
  })
  .meta({
    examples: [
      { token: 'hpp_Wq2b3C4d5E6f7G8h9I0jQxYzAbCdEfGhIjKlMnOpQr', action: 'select_network', value: 'eth' },
    ],
  });

export const hostedStatusRequest = z
  .object({ token: hostedToken })
  .meta({ examples: [{ token: 'hpp_Wq2b3C4d5E6f7G8h9I0jQxYzAbCdEfGhIjKlMnOpQr' }] });

/** Section 2.2 as sent over REST. */
export const hostedLinkResponse = z.object({
  session: z.string().describe('Session id.'),
  token: z.string().describe('One-time token, returned once, stored only as a hash.'),
  url: z.string().describe('Page address; its path is /p/{token}.'),
  expires_at: z.string().optional().describe('Link expiry (ISO 8601).'),
});

/** `POST /v1/hpp/link` as sent over REST: what the page shows around the steps. */
export const hostedLinkInfoResponse = z.object({
  session: z.string().describe('Session id.'),
  language: z.enum(['en', 'ru', 'es']).describe('The page language (the components use the same).'),
  network: z.string().optional().describe('Network, once chosen or prefilled.'),
  token: z.string().optional().describe('Token symbol, once chosen or prefilled.'),
  amount: z.string().optional().describe('Amount in whole units, once entered or prefilled.'),
  expires_at: z.string().optional().describe('Link expiry (ISO 8601); applies only while paid is false.'),
  paid: z.boolean().describe('A payment is reported or found: the link no longer expires.'),
  return_url: z.string().optional().describe('Where the page sends the player after a terminal step.'),
  merchant_name: z.string().describe('Who the player pays: the merchant display name, else its name.'),
  order_reference: z.string().optional().describe("The merchant's external_order_id, if it gave one."),
  tx_hash: z.string().optional().describe('The payment transaction once found, else the one reported.'),
});
