import { defineRoutes } from '../../rest/route.ts';
import { initRequest, statusRequest, stepRequest, stepResponse } from './session.schemas.ts';

/** The StepResponse selection, aliased to the REST spelling of section 2.3. */
export const STEP_RESPONSE = `{
  step session status
  components { type text options { label action value note disabled reason } name label placeholder action status }
  wallet_action: walletAction { method params chain_id: chainId }
  submit_action: submitAction
}`;

/** `/v1/cashier/*`: self-hosted deposit sessions (sections 4.3-4.5). */
export const sessionRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/cashier/init',
    auth: 'signed',
    summary: 'Open a deposit session',
    description:
      'Returns the first step. Where it starts depends on what is prefilled: nothing → network_select; network, network+token, ' +
      'network+token+amount → connect_wallet. A repeated external_order_id with the same parameters returns the ' +
      'same session; with different parameters it is 409.',
    operation: `mutation ($input: CashierInitInput!) { result: cashierInit(input: $input) ${STEP_RESPONSE} }`,
    request: initRequest,
    response: stepResponse,
    errors: [400, 401, 403, 409, 503],
    tags: ['cashier'],
  },
  {
    method: 'POST',
    path: '/v1/cashier/step',
    auth: 'signed',
    summary: 'Submit the current step’s action',
    description:
      'An action of another step or on a terminal session is 400 invalid_action; a value that is not one of the ' +
      'offered options is 400 validation; approval_submitted is 400 tx_reverted when the approval reverted and 503 ' +
      'unavailable while it is not mined or the allowance is not readable yet.',
    operation: `mutation ($input: CashierStepInput!) { result: cashierStep(input: $input) ${STEP_RESPONSE} }`,
    request: stepRequest,
    response: stepResponse,
    errors: [400, 401, 403, 404, 503],
    tags: ['cashier'],
  },
  {
    method: 'POST',
    path: '/v1/cashier/status',
    auth: 'signed',
    summary: 'Read a session’s current step',
    description: 'Read-only and safe to poll; each poll is its own signed request.',
    operation: `query ($input: CashierStatusInput!) { result: cashierStatus(input: $input) ${STEP_RESPONSE} }`,
    request: statusRequest,
    response: stepResponse,
    errors: [401, 403, 404, 503],
    tags: ['cashier'],
  },
]);
