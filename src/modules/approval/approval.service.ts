import { getAddress } from 'ethers';
import type { ChainClients } from '../../chains/clients.ts';
import { decodeApprove } from '../../chains/evm/abi.ts';
import { decodeSignedTransaction } from '../../chains/evm/tx-decode.ts';
import {
  parseSignedTransaction,
  type SignedTronTransaction,
  signedFromParts,
} from '../../chains/tron/broadcast.ts';
import { decodeTronTransaction } from '../../chains/tron/decode.ts';
import { recoverTxSigner } from '../../chains/tron/signature.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, validation } from '../../errors.ts';
import { formatUnits } from '../../money.ts';
import { displayAddress, type PayoutChains, type PayoutTarget } from '../payout/payout.chain.ts';
import { recordBuild, requireBuiltShape } from './approval.built.ts';

/**
 * ERC-20/TRC-20 approvals of the payout routers (sections 2.7, 3.6, 4.14-4.16, D11): build the
 * unsigned `approve(router, amount)` from the payout wallet, broadcast only a signed transaction that
 * is exactly that approval — on EVM one recorded build's type, nonce and gas fields too
 * (approval.built.ts) — (a wrong key is 403, anything else 400, and neither reaches the network),
 * and read where one stands with the allowance the router has now.
 */

export interface ApprovalRequest {
  network: string;
  token: string;
  amount: string;
  batch?: boolean | null;
}

export interface BroadcastRequest extends ApprovalRequest {
  signedTransaction?: string | null;
  rawTransaction?: string | null;
  signature?: string | null;
}

export interface ApprovalStatusRequest {
  network: string;
  token: string;
  batch?: boolean | null;
  txHash: string;
}

const HASH = /^(0x)?[0-9a-fA-F]{64}$/;

export class ApprovalService {
  constructor(private readonly deps: { chains: PayoutChains; clients: ChainClients }) {}

  private target(
    em: EntityManager,
    merchantId: string,
    r: { network: string; token: string; batch?: boolean | null },
  ) {
    return this.deps.chains.target(em, merchantId, { ...r, routerKind: r.batch ? 'batch' : 'single' });
  }

  /** The unsigned approval (section 2.7): a legacy EVM transaction plus its wallet action, or Tron's raw transaction. */
  async build(em: EntityManager, merchantId: string, input: ApprovalRequest) {
    const target = await this.target(em, merchantId, input);
    const amount = this.deps.chains.parseAmount(target.token, input.amount);
    const base = this.describe(target, amount);
    if (target.network.kind === 'tron') {
      const transaction = await this.deps.clients.tronClient(target.network).buildApprove({
        token: target.token.address,
        owner: target.walletHex,
        spender: target.router,
        amount,
      });
      return { ...base, transaction };
    }
    const transaction = await this.deps.clients.evm(target.network).buildApprove({
      token: target.token.address,
      owner: target.walletHex,
      spender: target.router,
      amount,
    });
    await recordBuild(em, merchantId, target, amount, transaction);
    return {
      ...base,
      transaction,
      walletAction: {
        method: 'eth_sendTransaction',
        params: [
          { from: transaction.from, to: transaction.to, data: transaction.data, value: transaction.value },
        ],
        chain_id: transaction.chainId,
      },
    };
  }

  /** Broadcasts a signed approval after checking it is exactly the one built for these parameters. */
  async broadcast(em: EntityManager, merchantId: string, input: BroadcastRequest) {
    const target = await this.target(em, merchantId, input);
    const amount = this.deps.chains.parseAmount(target.token, input.amount);
    if (target.network.kind === 'tron') {
      const signed = this.tronSigned(input);
      this.checkTron(target, amount, signed, true);
      const { txId } = await this.deps.clients.tronClient(target.network).broadcast(signed);
      return { network: target.network.id, token: target.token.symbol, txHash: txId };
    }
    if (!input.signedTransaction) throw validation('signed_transaction: required on EVM networks');
    const tx = decodeSignedTransaction(input.signedTransaction);
    if (tx.chainId !== target.network.chainId)
      throw validation(
        `not the approval that was built: signed for chain ${tx.chainId}, not ${target.network.chainId}`,
      );
    this.checkCall(target, amount, { to: tx.to, value: tx.value, approve: tx.approve });
    if (getAddress(tx.from) !== getAddress(target.walletHex))
      throw new AppError('forbidden', `the approval is signed by ${tx.from}, not by the payout wallet`);
    await requireBuiltShape(em, merchantId, target, amount, tx);
    const txHash = await this.deps.clients.evm(target.network).broadcast(input.signedTransaction);
    return { network: target.network.id, token: target.token.symbol, txHash };
  }

  /** Where an approval stands (section 3.6), with the allowance the router has now. */
  async status(em: EntityManager, merchantId: string, input: ApprovalStatusRequest) {
    const target = await this.target(em, merchantId, input);
    if (!HASH.test(input.txHash)) throw validation('tx_hash: must be 32 bytes of hex');
    const base = {
      network: target.network.id,
      token: target.token.symbol,
      spender: displayAddress(target.network, target.router),
      source: target.wallet,
      txHash: input.txHash,
    };
    const { allowance } = await this.deps.chains.funds(target);
    const allowanceWhole = formatUnits(allowance, target.token.decimals);
    if (target.network.kind === 'tron') {
      const tron = this.deps.clients.tronClient(target.network);
      const tx = await tron.getTransaction(input.txHash);
      if (!tx) return { ...base, status: 'not_found', block: null, allowance: allowanceWhole };
      this.checkOwnerAndCall(target, {
        owner: tx.owner,
        to: tx.contract,
        value: tx.callValue,
        approve: tx.approve,
      });
      const state = await tron.getTxState(input.txHash);
      return { ...base, status: state.status, block: state.blockNumber ?? null, allowance: allowanceWhole };
    }
    const hash = input.txHash.startsWith('0x') ? input.txHash : `0x${input.txHash}`;
    const client = this.deps.clients.evm(target.network);
    const tx = await client.getTransaction(hash);
    if (!tx) return { ...base, status: 'not_found', block: null, allowance: allowanceWhole };
    this.checkOwnerAndCall(target, {
      owner: tx.from,
      to: tx.to,
      value: tx.value,
      approve: decodeApprove(tx.data),
    });
    const state = await client.getTxState(hash);
    return { ...base, status: state.status, block: state.blockNumber ?? null, allowance: allowanceWhole };
  }

  private describe(target: PayoutTarget, amount: bigint) {
    return {
      network: target.network.id,
      token: target.token.symbol,
      amount: formatUnits(amount, target.token.decimals),
      spender: displayAddress(target.network, target.router),
      source: target.wallet,
    };
  }

  /** The call must be exactly `approve(router, amount)` on the token with no value. */
  private checkCall(
    target: PayoutTarget,
    amount: bigint,
    tx: { to: string | null; value: bigint; approve: { spender: string; amount: bigint } | null },
  ): void {
    if (!tx.to || getAddress(tx.to) !== getAddress(target.token.address))
      throw validation(
        `not the approval that was built: it does not call the ${target.token.symbol} contract`,
      );
    if (!tx.approve)
      throw validation('not the approval that was built: the call is not approve(spender, amount)');
    if (getAddress(tx.approve.spender) !== getAddress(target.router))
      throw validation('not the approval that was built: it approves another spender than the payout router');
    if (tx.approve.amount !== amount)
      throw validation(
        `not the approval that was built: it approves ${formatUnits(tx.approve.amount, target.token.decimals)}, not ${formatUnits(amount, target.token.decimals)}`,
      );
    if (tx.value !== 0n) throw validation('not the approval that was built: it sends native coin along');
  }

  private checkOwnerAndCall(
    target: PayoutTarget,
    tx: {
      owner: string;
      to: string | null;
      value: bigint;
      approve: { spender: string; amount: bigint } | null;
    },
  ): void {
    const ok =
      tx.to !== null &&
      getAddress(tx.to) === getAddress(target.token.address) &&
      tx.approve !== null &&
      getAddress(tx.approve.spender) === getAddress(target.router) &&
      getAddress(tx.owner) === getAddress(target.walletHex);
    if (!ok)
      throw validation(
        `the transaction is not an approval of ${target.token.symbol} to this payout router from the payout wallet`,
      );
  }

  /** The signed Tron transaction in either form of D11. */
  private tronSigned(input: BroadcastRequest): SignedTronTransaction {
    if (input.rawTransaction && input.signature)
      return signedFromParts(input.rawTransaction, input.signature);
    if (input.signedTransaction) return parseSignedTransaction(input.signedTransaction);
    throw validation('raw_transaction and signature, or signed_transaction: required on tron');
  }

  private checkTron(
    target: PayoutTarget,
    amount: bigint,
    signed: SignedTronTransaction,
    fresh: boolean,
  ): void {
    const tx = decodeTronTransaction(signed.rawTransaction);
    this.checkCall(target, amount, { to: tx.contract, value: tx.callValue, approve: tx.approve });
    if (getAddress(tx.owner) !== getAddress(target.walletHex))
      throw validation('not the approval that was built: it is not from the Tron payout wallet');
    if (fresh && tx.expiration <= Date.now())
      throw validation('the transaction expired; build a new approval');
    const signer = recoverTxSigner(signed.txId, signed.signature);
    if (getAddress(signer) !== getAddress(target.walletHex))
      throw new AppError('forbidden', 'the approval is signed by another key than the Tron payout wallet');
  }
}
