import { defineRoutes } from '../../rest/route.ts';
import {
  authorizeBatchRequest,
  batchResponse,
  batchStatusRequest,
  createBatchRequest,
} from './batch.schemas.ts';

/** The batch of section 2.5 in REST spelling; `typed_data` is selected on create only. */
const BATCH = `batch: id external_id: externalId status network token total deadline
  items { payout: id index: batchIndex external_id: externalId recipient amount status tx_hash: txHash
          failure_reason: failureReason }`;

/** `/v1/payouts/batch*`: batch payouts (sections 4.17-4.19). */
export const batchRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/payouts/batch',
    auth: 'signed',
    summary: 'Create a batch payout order to sign',
    description:
      '1 to 100 items of one token on one network. Each item is a payout of its own (po_ id, own status and ' +
      'webhook); item external_ids must be unique in the batch and unused by any payout of the merchant (409). ' +
      'The batch router’s allowance and the payout wallet’s balance must cover the total. A repeated batch ' +
      'external_id with the same parameters returns the same batch and order.',
    operation: `mutation ($input: PayoutBatchCreateInput!) { result: payoutBatchCreate(input: $input) { ${BATCH} typed_data: typedData } }`,
    request: createBatchRequest,
    response: batchResponse,
    errors: [400, 401, 403, 409, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/batch/authorize',
    auth: 'signed',
    summary: 'Authorize a batch with the payout wallet’s signature',
    description:
      'Every item becomes authorized and the batch is relayed off the request path. The same signature again ' +
      'returns the batch unchanged; a different valid signature is 409; past the deadline 410.',
    operation: `mutation ($input: PayoutBatchAuthorizeInput!) { result: payoutBatchAuthorize(input: $input) { ${BATCH} } }`,
    request: authorizeBatchRequest,
    response: batchResponse,
    errors: [400, 401, 403, 404, 409, 410, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/batch/status',
    auth: 'signed',
    summary: 'Read a batch and every item',
    description:
      'Read-only. The status is derived from the items: pending, authorized, processing, completed, ' +
      'partially_completed (every item settled, some failed: each failed item has failure_reason), failed.',
    operation: `query ($input: PayoutBatchStatusInput!) { result: payoutBatchStatus(input: $input) { ${BATCH} } }`,
    request: batchStatusRequest,
    response: batchResponse,
    errors: [401, 403, 404, 503],
    tags: ['payouts'],
  },
]);
