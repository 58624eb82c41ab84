import { defineRoutes } from '../../rest/route.ts';
import { depositAddressRequest, depositAddressResponse } from './deposit-address.schemas.ts';

/** `POST /v1/wallet/address` (section 4.21, D8, D15). */
export const depositAddressRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/wallet/address',
    auth: 'signed',
    summary: 'The player’s standing deposit address on a network',
    description:
      'Idempotent: call it on every visit. The address is a counterfactual forwarder bound to the merchant’s ' +
      'settlement wallet of that network and the player; tokens sent to it are credited once final and announced ' +
      'with deposit.confirmed, then swept to that wallet. After a settlement-wallet change the player gets a new ' +
      'address; the old one keeps being credited and swept to the wallet it was bound to.',
    operation: `mutation ($input: DepositAddressInput!) { result: depositAddress(input: $input) {
      player_id: playerId network address tokens } }`,
    request: depositAddressRequest,
    response: depositAddressResponse,
    errors: [400, 401, 403, 503],
    tags: ['wallet'],
  },
]);
