import { defineRoutes } from '../../rest/route.ts';
import {
  approvalStatusRequest,
  approvalStatusResponse,
  broadcastApprovalRequest,
  broadcastResponse,
  buildApprovalRequest,
  builtApprovalResponse,
} from './approval.schemas.ts';

/** `/v1/payouts/approval*`: approvals of the payout routers (sections 4.14-4.16). */
export const approvalRoutes = defineRoutes([
  {
    method: 'POST',
    path: '/v1/payouts/approval',
    auth: 'signed',
    summary: 'Build the payout wallet’s approval of a payout router',
    description:
      'EVM: a legacy transaction (from, to, data, value, nonce, gas, gasPrice, chainId as hex strings) plus the same ' +
      'call as a wallet_action. Tron: raw_transaction and tx_id — sign the 32-byte tx_id with the Tron payout wallet. ' +
      'batch: true approves the batch router.',
    operation: `mutation ($input: PayoutApprovalInput!) { result: payoutApprovalBuild(input: $input) {
      network token amount spender source transaction wallet_action: walletAction } }`,
    request: buildApprovalRequest,
    response: builtApprovalResponse,
    errors: [400, 401, 403, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/approval/broadcast',
    auth: 'signed',
    summary: 'Broadcast a signed approval',
    description:
      'Only a transaction that is exactly the approval built (token, spender, amount, from and signed by the payout ' +
      'wallet, this chain; on EVM also the legacy type, nonce, gas and gasPrice of an approval built for this merchant, ' +
      'so no access or authorization list) is broadcast: another key is 403, anything else 400, and neither reaches ' +
      'the network. ' +
      'Tron: raw_transaction + signature, or the whole signed transaction as signed_transaction. tx_hash on Tron is ' +
      'the transaction id (hex, without 0x).',
    operation: `mutation ($input: PayoutApprovalBroadcastInput!) { result: payoutApprovalBroadcast(input: $input) {
      network token tx_hash: txHash } }`,
    request: broadcastApprovalRequest,
    response: broadcastResponse,
    // A whole signed Tron transaction is the node's own JSON: its keys are not ours to respell.
    opaque: ['signed_transaction'],
    errors: [400, 401, 403, 503],
    tags: ['payouts'],
  },
  {
    method: 'POST',
    path: '/v1/payouts/approval/status',
    auth: 'signed',
    summary: 'Where an approval stands',
    description:
      'pending, confirmed, failed, or not_found (briefly after broadcast, else dropped); allowance is what the router ' +
      'may pull from the payout wallet now. A transaction that is not an approval of this token to this router from ' +
      'the payout wallet is refused.',
    operation: `query ($input: PayoutApprovalStatusInput!) { result: payoutApprovalStatus(input: $input) {
      network token spender source tx_hash: txHash status block allowance } }`,
    request: approvalStatusRequest,
    response: approvalStatusResponse,
    errors: [400, 401, 403, 503],
    tags: ['payouts'],
  },
]);
