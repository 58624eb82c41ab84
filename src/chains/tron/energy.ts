import { unavailable, validation } from '../../errors.ts';
import { toTronHex } from './address.ts';
import { decodeNodeMessage, malformed, nodeError, type TronHttp } from './http.ts';

/**
 * What a TriggerSmartContract costs, read from the node: java-tron runs the call read-only
 * (`triggerconstantcontract`) and reports the energy it used; the chain parameters say what a unit
 * of energy burns (`getEnergyFee`, sun) and the most any transaction may burn (`getMaxFeeLimit`). A
 * relay's `fee_limit` is the estimate priced with a margin, capped there: never a constant, which
 * either burns too much on small calls or runs a large batch out of energy every time.
 */

/** Extra energy asked for over the estimate, percent (state can move between estimate and run). */
export const ENERGY_MARGIN_PERCENT = 20;
/** Added to the margin per earlier attempt that ran out of energy, percent. */
export const ENERGY_RETRY_BUMP_PERCENT = 50;

export interface EnergyPrices {
  /** Sun burned per unit of energy. */
  energyFee: bigint;
  /** The most one transaction may set as `fee_limit`, sun. */
  maxFeeLimit: bigint;
}

interface ConstantAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  constant_result?: string[];
  energy_used?: number;
}

/**
 * Energy a call uses, run read-only as `caller`; without `contract`, `data` runs as creation code (a
 * deployment's estimate, as java-tron does). A call the contract refuses is `validation` (with the
 * node's reason); an answer without `energy_used` is a node that cannot estimate: `unavailable`.
 */
export async function estimateEnergy(
  http: TronHttp,
  call: { contract?: string; data: string; caller: string },
): Promise<bigint> {
  const answer = await http.post<ConstantAnswer>('/wallet/triggerconstantcontract', {
    owner_address: toTronHex(call.caller),
    ...(call.contract ? { contract_address: toTronHex(call.contract) } : {}),
    data: call.data.replace(/^0x/, ''),
    visible: false,
  });
  if (nodeError(answer) !== undefined) throw malformed(http.networkId, 'triggerconstantcontract', answer);
  if (answer.result?.code) {
    const reason = decodeNodeMessage(answer.result.message) || answer.result.code;
    const what = call.contract ? `call to ${call.contract}` : 'deployment';
    throw validation(`${what} failed: ${reason}`, { node_code: answer.result.code });
  }
  if (typeof answer.energy_used !== 'number' || !Number.isSafeInteger(answer.energy_used))
    throw unavailable(`network ${http.networkId}: the node reports no energy_used for the call`);
  return BigInt(answer.energy_used);
}

/** The energy price and the fee-limit ceiling of the chain (`getchainparameters`). */
export async function energyPrices(http: TronHttp): Promise<EnergyPrices> {
  const answer = await http.post<{ chainParameter?: { key: string; value?: number }[] }>(
    '/wallet/getchainparameters',
    {},
  );
  const value = (key: string) => answer.chainParameter?.find((p) => p.key === key)?.value;
  const energyFee = value('getEnergyFee');
  const maxFeeLimit = value('getMaxFeeLimit');
  if (!Number.isSafeInteger(energyFee) || !Number.isSafeInteger(maxFeeLimit) || energyFee! <= 0)
    throw malformed(http.networkId, 'getchainparameters', answer);
  return { energyFee: BigInt(energyFee!), maxFeeLimit: BigInt(maxFeeLimit!) };
}

/** The ceiling a relay's fee limit may reach: the chain's maximum, lowered by the operator's cap. */
export const feeLimitCap = (prices: EnergyPrices, operatorCap?: number): bigint =>
  operatorCap === undefined || BigInt(operatorCap) > prices.maxFeeLimit
    ? prices.maxFeeLimit
    : BigInt(operatorCap);

/**
 * The `fee_limit` for `energy`: priced, with the margin (grown by earlier out-of-energy attempts),
 * capped at `cap`. Undefined when even the bare estimate costs more than the cap: such a call can
 * never be paid on this chain as configured.
 */
export function feeLimitFor(energy: bigint, prices: EnergyPrices, cap: bigint, outOfEnergyAttempts = 0) {
  const bare = energy * prices.energyFee;
  if (bare > cap) return undefined;
  const margin = BigInt(100 + ENERGY_MARGIN_PERCENT + ENERGY_RETRY_BUMP_PERCENT * outOfEnergyAttempts);
  const limit = (bare * margin + 99n) / 100n;
  return limit > cap ? cap : limit;
}
