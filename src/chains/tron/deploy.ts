import { computeAddress, Interface, SigningKey } from 'ethers';
import { isAppError, validation } from '../../errors.ts';
import { formatUnits } from '../../money.ts';
import { artifact } from '../contracts.ts';
import type { DeployTarget } from '../deploy.ts';
import { toEvmAddress, toTronAddress, toTronHex } from './address.ts';
import { broadcastSigned, signedFromParts } from './broadcast.ts';
import { buildTrigger, type TronBuiltTransaction } from './build.ts';
import { energyPrices, estimateEnergy, feeLimitCap, feeLimitFor } from './energy.ts';
import { bytesToHex, hexToBytes, isHex, normalizeHex } from './hex.ts';
import { decodeNodeMessage, malformed, nodeError, type TronHttp } from './http.ts';
import { blockNumber, getTxState } from './status.ts';
import { callConstant } from './trc20.ts';
import { soleCreate } from './tx-create.ts';
import { decodeRaw, encodeRaw, type RawTransaction, txIdOf } from './tx-raw.ts';

/**
 * Deploying the gateway's contracts through a Tron node's HTTP API (`npm run cli -- contracts:deploy`
 * on a `tron` network). The node builds each transaction (`deploycontract`, `triggersmartcontract`:
 * it supplies the TaPoS reference); what comes back is checked against what was asked, signed here
 * with the deployer's key and broadcast as exact bytes; each waits until it is in a block, and the
 * last until its block is solidified. A deployed contract's address is the node's answer
 * (`contract_address` of the transaction's info), never computed here.
 */

/** Callers of the gateway's contracts pay all their energy: the deployer sponsors nothing. */
export const CONSUME_USER_RESOURCE_PERCENT = 100;
/** What tronweb sets; unused while callers pay 100 %. */
export const ORIGIN_ENERGY_LIMIT = 10_000_000;
/** How long a built transaction stays valid: long enough for a slow node, short enough to retry. */
const VALIDITY_MS = 5 * 60_000;
/** Slack past expiration before a transaction the node does not know counts as dropped. */
const EXPIRY_SLACK_MS = 10_000;

interface DeployAnswer {
  Error?: string;
  result?: { code?: string; message?: string };
  txID?: string;
  raw_data_hex?: string;
}

/** Builds an unsigned CreateSmartContract, refusing anything the node changed. */
export async function buildCreate(
  http: TronHttp,
  request: { owner: string; bytecode: string; name: string; feeLimit: number; validityMs?: number },
): Promise<TronBuiltTransaction> {
  if (!isHex(request.bytecode) || normalizeHex(request.bytecode) === '')
    throw validation('bytecode must be hex');
  const owner = toTronHex(request.owner);
  const bytecode = normalizeHex(request.bytecode);
  const answer = await http.post<DeployAnswer>('/wallet/deploycontract', {
    owner_address: owner,
    abi: '[]',
    bytecode,
    name: request.name,
    fee_limit: request.feeLimit,
    call_value: 0,
    consume_user_resource_percent: CONSUME_USER_RESOURCE_PERCENT,
    origin_energy_limit: ORIGIN_ENERGY_LIMIT,
    visible: false,
  });
  const error = nodeError(answer);
  if (error !== undefined || answer.result?.code) {
    const reason = error ?? (decodeNodeMessage(answer.result?.message) || answer.result?.code);
    throw validation(`the network refused to build the deployment: ${reason}`);
  }
  const rawHex = answer.raw_data_hex;
  if (typeof rawHex !== 'string' || !isHex(rawHex)) throw malformed(http.networkId, 'deploycontract', answer);
  let raw: RawTransaction;
  try {
    raw = decodeRaw(hexToBytes(rawHex));
  } catch {
    throw malformed(http.networkId, 'deploycontract', answer);
  }
  // Never sign a deployment the node altered: it would put other code on chain under our name.
  const create = soleCreate(raw);
  const faithful =
    create !== undefined &&
    create.ownerAddress === owner &&
    create.originAddress === owner &&
    create.bytecode === bytecode &&
    create.name === request.name &&
    create.abi === '' &&
    create.callValue === 0n &&
    create.callTokenValue === 0n &&
    create.tokenId === 0n &&
    create.consumeUserResourcePercent === BigInt(CONSUME_USER_RESOURCE_PERCENT) &&
    create.originEnergyLimit === BigInt(ORIGIN_ENERGY_LIMIT) &&
    create.otherFields.length === 0 &&
    raw.contracts[0]!.permissionId === 0 &&
    raw.feeLimit === request.feeLimit &&
    raw.data === '' &&
    answer.txID === txIdOf(hexToBytes(rawHex));
  if (!faithful)
    throw malformed(http.networkId, 'deploycontract (transaction differs from the request)', answer);
  const dated: RawTransaction = {
    ...raw,
    expiration: Math.max(raw.expiration, Date.now() + (request.validityMs ?? VALIDITY_MS)),
  };
  const bytes = encodeRaw(dated);
  return {
    raw_transaction: bytesToHex(bytes),
    tx_id: txIdOf(bytes),
    fee_limit: request.feeLimit,
    expiration: dated.expiration,
  };
}

/** Whether the node has a contract at `address` (`getcontract` answers `{}` for any other account). */
export async function contractExists(http: TronHttp, address: string): Promise<boolean> {
  const answer = await http.post<{ contract_address?: string; bytecode?: string }>('/wallet/getcontract', {
    value: toTronHex(address),
    visible: false,
  });
  if (nodeError(answer) !== undefined) throw malformed(http.networkId, 'getcontract', answer);
  return typeof answer.bytecode === 'string' && answer.bytecode !== '';
}

export interface TronDeployOptions {
  /** The operator's cap on what one transaction may burn, sun; default the chain's `getMaxFeeLimit`. */
  feeLimitSun?: number;
  /** Between status reads, ms. */
  pollMs?: number;
  progress?: (step: string) => void;
}

/**
 * The deploy target of a Tron network: `deployGateway` through the HTTP API, from `privateKey`.
 * Fee limits are the node's energy estimate priced with a margin; a node that cannot estimate a
 * deployment gets the cap (only the energy used is burned when it succeeds).
 */
export function tronDeployTarget(
  http: TronHttp,
  privateKey: string,
  opts: TronDeployOptions = {},
): DeployTarget {
  const key = new SigningKey(privateKey);
  const deployer = computeAddress(key.publicKey);
  const pollMs = opts.pollMs ?? 1_000;
  const say = opts.progress ?? (() => {});
  let lastBlock = -1;

  const feeLimit = async (estimate: () => Promise<bigint>, what: string): Promise<number> => {
    const prices = await energyPrices(http);
    const cap = feeLimitCap(prices, opts.feeLimitSun);
    let energy: bigint;
    try {
      energy = await estimate();
    } catch (error) {
      if (!isAppError(error)) throw error;
      say(`${what}: no energy estimate (${error.message}); fee limit is the cap`);
      return Number(cap);
    }
    const limit = feeLimitFor(energy, prices, cap);
    if (limit === undefined)
      throw validation(
        `${what} needs about ${energy} energy, more than the fee limit cap of ${cap} sun allows`,
      );
    return Number(limit);
  };

  /** Signs, broadcasts and waits until the transaction is in a block; returns its id. */
  const submit = async (built: TronBuiltTransaction, what: string): Promise<string> => {
    const signature = key.sign(`0x${built.tx_id}`).serialized;
    const signed = signedFromParts(built.raw_transaction, signature);
    await broadcastSigned(http, signed);
    for (;;) {
      const state = await getTxState(http, signed.txId);
      if (state.status === 'confirmed') {
        lastBlock = Math.max(lastBlock, state.blockNumber ?? lastBlock);
        say(`${what}: ${signed.txId}, burned ${formatUnits(BigInt(state.fee ?? 0), 6)} TRX`);
        return signed.txId;
      }
      if (state.status === 'failed')
        throw new Error(`${what} failed on chain (${state.result}): ${signed.txId}`);
      // Past its expiration a transaction not in a block never will be: no block takes it any more.
      if (Date.now() > built.expiration + EXPIRY_SLACK_MS)
        throw new Error(`${what} expired without being mined: ${signed.txId}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };

  return {
    deployer,
    async deploy(name, args) {
      const a = artifact(name);
      const bytecode = normalizeHex(
        a.bytecode + new Interface(a.abi).encodeDeploy(args as unknown[]).slice(2),
      );
      const limit = await feeLimit(() => estimateEnergy(http, { data: bytecode, caller: deployer }), name);
      const built = await buildCreate(http, { owner: deployer, bytecode, name, feeLimit: limit });
      const txId = await submit(built, `deploying ${name}`);
      const info = await http.post<{ contract_address?: string }>('/wallet/gettransactioninfobyid', {
        value: txId,
      });
      const created = info.contract_address;
      if (typeof created !== 'string' || !/^41[0-9a-fA-F]{40}$/.test(created))
        throw malformed(http.networkId, `gettransactioninfobyid of the ${name} deployment`, info);
      return toEvmAddress(created);
    },
    async send(to, data, what) {
      const limit = await feeLimit(
        () => estimateEnergy(http, { contract: to, data, caller: deployer }),
        what,
      );
      const built = await buildTrigger(http, {
        owner: deployer,
        contract: to,
        data,
        feeLimit: limit,
        validityMs: VALIDITY_MS,
      });
      await submit(built, what);
    },
    read: (to, data) => callConstant(http, { contract: to, data, caller: deployer }),
    hasCode: (address) => contractExists(http, address),
    display: (address) => `${toTronAddress(address)} (${address})`,
    async settle() {
      while ((await blockNumber(http, true)) < lastBlock) await new Promise((r) => setTimeout(r, pollMs));
    },
  };
}
