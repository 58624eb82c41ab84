import { defineRoutes } from '../../rest/route.ts';
import { STEP_RESPONSE } from '../session/session.rest.ts';
import { stepResponse } from '../session/session.schemas.ts';
import {
  hostedCreateRequest,
  hostedLinkInfoResponse,
  hostedLinkResponse,
  hostedStatusRequest,
  hostedStepRequest,
} from './hosted.schemas.ts';

/** `/v1/hpp/*`: hosted payment links (sections 4.6-4.8, D12). */
export const hostedRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/hpp/sessions',
    auth: 'signed',
    summary: 'Create a hosted payment link',
    description:
      'Opens a deposit session with the cashier init prefill rules plus return_url, and returns its page link. The ' +
      'token is returned once and stored only as a hash. A repeated external_order_id with the same parameters ' +
      '(language and return_url aside: the latest wins) returns the same session with a fresh token; the earlier ' +
      'token stops working (404). Other parameters, or an order no longer pending or with a payment reported or ' +
      'found, are 409.',
    operation: `mutation ($input: HostedCreateInput!) { result: hostedCreate(input: $input) { session token url expires_at: expiresAt } }`,
    request: hostedCreateRequest,
    response: hostedLinkResponse,
    errors: [400, 401, 403, 409, 503],
    tags: ['hosted'],
  },
  {
    method: 'POST',
    path: '/v1/hpp/step',
    auth: 'token',
    summary: 'Submit the current step’s action (hosted page)',
    description:
      'The cashier step machine on the session the token opens. Missing token 400; no session carries it 404; ' +
      'link expired while the order is pending with no payment reported or found 410.',
    operation: `mutation ($input: HostedStepInput!) { result: hostedStep(input: $input) ${STEP_RESPONSE} }`,
    request: hostedStepRequest,
    response: stepResponse,
    errors: [400, 404, 410, 503],
    tags: ['hosted'],
  },
  {
    method: 'POST',
    path: '/v1/hpp/status',
    auth: 'token',
    summary: 'Read the current step (hosted page)',
    description:
      'Read-only, safe to poll. Once a payment is reported or found it answers until 24 hours after the session ended.',
    operation: `query ($input: HostedStatusInput!) { result: hostedStatus(input: $input) ${STEP_RESPONSE} }`,
    request: hostedStatusRequest,
    response: stepResponse,
    errors: [400, 404, 410, 503],
    tags: ['hosted'],
  },
  {
    method: 'POST',
    path: '/v1/hpp/link',
    auth: 'token',
    summary: 'Read the link around the steps (hosted page)',
    description:
      'What the page shows besides the step: its language, network, token and amount so far, the link expiry ' +
      '(which applies only while no payment is reported or found), the return URL, who is paid, the order ' +
      'reference and the payment transaction. Errors as hpp/status.',
    operation: `query ($input: HostedStatusInput!) { result: hostedLink(input: $input) { session language network token amount expires_at: expiresAt paid return_url: returnUrl merchant_name: merchantName order_reference: orderReference tx_hash: txHash } }`,
    request: hostedStatusRequest,
    response: hostedLinkInfoResponse,
    errors: [400, 404, 410, 503],
    tags: ['hosted'],
  },
]);
