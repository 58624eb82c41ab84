import type { EvmClient } from '../chains/evm/index.ts';
import { keccakHex } from '../chains/evm/keccak.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import { broadcastStored, currentFees, type Fees, signCall } from './evm-send.ts';
import { type RelayRequest, RelayTransaction } from './relay.entity.ts';
import type { Relayer, tuningOf } from './relayer.ts';

/**
 * Replacing a relay transaction at its nonce (the watcher, evm-watch.ts): a stuck one outbid with
 * bumped fees, a refused one signed again with fees of now, and a nonce no call needs any more filled
 * with a 0-value self-transfer. Each replacement is stored before it is broadcast, like every send.
 */

/**
 * The node has refused the request's stored transaction for longer than a replacement waits (a fee cap
 * below the base fee after a spike, a node's fee cap, any permanent refusal): left alone, it would be
 * re-broadcast forever and every later nonce of the wallet would wait behind the gap. The call is
 * signed again at the same nonce with fees of now (within the configured ceiling); when the node
 * refuses that too, the nonce is filled with a 0-value self-transfer and the call goes again at a fresh
 * nonce once the filler is mined. Operators are alerted at error level: a jam means something in the
 * set-up (fees, node limits) needs a look. A wallet out of gas is not a jam: it waits to be funded.
 */
export async function unjam(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  request: RelayRequest,
  mine: RelayTransaction[],
  tuning: ReturnType<typeof tuningOf>,
): Promise<void> {
  const last = mine.at(-1)!;
  const refusedCalls = mine.filter((t) => t.kind === 'call' && t.status === 'signed').length;
  const filler = last.kind === 'filler' || refusedCalls >= 2;
  relayer.deps.logger.error(
    'the node refuses a relay transaction; its nonce blocks the wallet’s later ones',
    {
      request: request.id,
      nonce: request.nonce,
      hash: last.hash,
      refusal: request.lastError?.slice(0, 300),
      next: filler ? 'filling the nonce with a self-transfer' : 'signing the call again with fees of now',
    },
  );
  await replace(relayer, network, client, request, last, tuning, filler, { fresh: true });
}

/**
 * Signs and sends a replacement of `last` at the same nonce (or a filler): fees bumped from the last
 * ones, or with `fresh` (the node never took the last one, so there is nothing to outbid) from the fees
 * of now with the bump as margin.
 */
export async function replace(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  request: RelayRequest,
  last: RelayTransaction,
  tuning: ReturnType<typeof tuningOf>,
  filler: boolean,
  options: { fresh?: boolean } = {},
): Promise<void> {
  const wallet = relayer.wallet(network)!;
  const now = await currentFees(client);
  const bump = (v: bigint) => (v * (100n + tuning.bumpPercent) + 99n) / 100n;
  const oldMax = options.fresh ? 0n : BigInt(last.maxFee ?? '0');
  const oldTip = last.priorityFee == null ? undefined : options.fresh ? 0n : BigInt(last.priorityFee);
  if (options.fresh) {
    now.maxFee = bump(now.maxFee);
    if (now.priorityFee !== undefined) now.priorityFee = bump(now.priorityFee);
  }
  let fees: Fees =
    oldTip === undefined
      ? { maxFee: max(bump(oldMax), now.maxFee) }
      : {
          priorityFee: max(bump(oldTip), now.priorityFee ?? 0n),
          maxFee: max(bump(oldMax), now.maxFee),
        };
  if (tuning.maxFeePerGas !== undefined && fees.maxFee > tuning.maxFeePerGas) {
    const capped = tuning.maxFeePerGas;
    // Nodes refuse a replacement that raises fees by less than 10 %: at the ceiling there is none.
    if (capped * 100n < oldMax * 110n) {
      relayer.deps.logger.warn('relay stuck at the fee ceiling; not bumping further', {
        request: request.id,
        ceilingWei: capped.toString(),
      });
      return;
    }
    fees = {
      ...fees,
      maxFee: capped,
      ...(fees.priorityFee === undefined ? {} : { priorityFee: min(fees.priorityFee, capped) }),
    };
  }
  const call = filler ? { to: wallet.address, data: '0x' } : { to: request.to, data: request.data };
  const gasLimit = filler ? 21_000n : BigInt(last.gasLimit ?? '0');
  const raw = await signCall(wallet, network, call, Number(request.nonce), gasLimit, fees);
  const saved = await relayer.deps.fork().transactional(async (em) => {
    const row = em.create(RelayTransaction, {
      request: request.id,
      network: network.id,
      wallet: wallet.address,
      nonce: request.nonce,
      kind: filler ? 'filler' : 'call',
      hash: keccakHex(raw),
      raw,
      gasLimit: gasLimit.toString(),
      maxFee: fees.maxFee.toString(),
      priorityFee: fees.priorityFee?.toString() ?? null,
      status: 'signed',
    });
    await em.flush();
    return row;
  });
  relayer.deps.logger.info(filler ? 'filling an abandoned relay’s nonce' : 'replacing a stuck relay', {
    request: request.id,
    nonce: request.nonce,
    maxFeePerGas: fees.maxFee.toString(),
  });
  await broadcastStored(relayer, network, client, saved);
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
