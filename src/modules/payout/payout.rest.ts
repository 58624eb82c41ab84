import { defineRoutes } from '../../rest/route.ts';
import {
  authorizePayoutRequest,
  createPayoutRequest,
  payoutResponse,
  payoutStatusRequest,
} from './payout.schemas.ts';

/** PayoutResponse (section 2.4) in REST spelling; `typed_data` is selected on create only. */
const PAYOUT = `payout: id status external_id: externalId network token amount recipient tx_hash: txHash
  failure_reason: failureReason deadline`;

/** `/v1/payouts*`: single payouts (sections 4.11-4.13). */
export const payoutRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/payouts',
    auth: 'signed',
    summary: 'Create a payout order to sign',
    description:
      'Checks that the payout wallet holds the amount and that the payout router may pull it, assigns a router nonce ' +
      'and returns the EIP-712 typed_data, signable for 30 minutes. A repeated external_id with the same parameters ' +
      'returns the same payout and the same order (same nonce and deadline); with different parameters, or used by a ' +
      'batch item, it is 409. insufficient_allowance / insufficient_funds carry details {required, available, token, ' +
      'owner, spender}.',
    operation: `mutation ($input: PayoutCreateInput!) { result: payoutCreate(input: $input) { ${PAYOUT} typed_data: typedData } }`,
    request: createPayoutRequest,
    response: payoutResponse,
    errors: [400, 401, 403, 409, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/authorize',
    auth: 'signed',
    summary: 'Authorize a payout with the payout wallet’s signature',
    description:
      'The signature must recover to the payout wallet of the payout’s network (the settlement wallet on EVM networks, ' +
      'the Tron payout wallet on tron); v 0/1 is normalised to 27/28. The payout becomes authorized and is relayed off ' +
      'the request path. Authorizing a payout that is already authorized or beyond returns it unchanged. Past the ' +
      '30-minute deadline it is 410 and the payout settles failed with failure_reason "expired".',
    operation: `mutation ($input: PayoutAuthorizeInput!) { result: payoutAuthorize(input: $input) { ${PAYOUT} } }`,
    request: authorizePayoutRequest,
    response: payoutResponse,
    errors: [400, 401, 403, 404, 410, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/status',
    auth: 'signed',
    summary: 'Read a payout',
    description:
      'Read-only and safe to poll. Another merchant’s payout is indistinguishable from a missing one (404).',
    operation: `query ($input: PayoutStatusInput!) { result: payoutStatus(input: $input) { ${PAYOUT} } }`,
    request: payoutStatusRequest,
    response: payoutResponse,
    errors: [401, 403, 404, 503],
    tags: ['payouts'],
  },
]);
