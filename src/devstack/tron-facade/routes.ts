import { toTronAddress } from '../../chains/tron/address.ts';
import { createBroadcastHandlers } from './broadcast.ts';
import { blockIdOf, type ChainView, headerJson } from './chain.ts';
import { createDeployHandlers } from './deploy.ts';
import type { EvmBlock, EvmRpc } from './evm-rpc.ts';
import { addressParam, BadRequest, intParam, isVisible, type Params, requiredString } from './params.ts';
import { CHAIN_PARAMETERS, WEI_PER_SUN } from './resources.ts';
import { createTriggerHandlers } from './trigger.ts';
import type { TxStore } from './tx-store.ts';
import { createTxView } from './tx-view.ts';

/**
 * The endpoints the facade serves. `/walletsolidity/*` variants see the chain only up to the
 * solidified block; everything else about them is the same as `/wallet/*`.
 */

export type Handler = (params: Params) => Promise<unknown>;

const TX_ID = /^(0x)?[0-9a-fA-F]{64}$/;

export function createRoutes(rpc: EvmRpc, chain: ChainView, store: TxStore): Map<string, Handler> {
  const view = createTxView(rpc, store);
  const trigger = createTriggerHandlers(rpc, chain);
  const broadcast = createBroadcastHandlers(rpc, chain, store);
  const deploy = createDeployHandlers(rpc, chain);
  const routes = new Map<string, Handler>();

  /** The highest block a variant may see: the head for /wallet, the solidified block for /walletsolidity. */
  const ceiling = (solid: boolean) => (solid ? chain.solidified() : chain.head());

  async function blockJson(block: EvmBlock | undefined): Promise<object> {
    if (!block) return {};
    const transactions = await view.blockTransactions(block);
    return {
      blockID: blockIdOf(block),
      block_header: { raw_data: headerJson(block) },
      ...(transactions.length ? { transactions } : {}),
    };
  }

  const txIdParam = (params: Params) => {
    const id = requiredString(params, 'value');
    if (!TX_ID.test(id)) throw new BadRequest('value must be a 32-byte id');
    return id;
  };

  for (const [prefix, solid] of [
    ['/wallet/', false],
    ['/walletsolidity/', true],
  ] as const) {
    routes.set(`${prefix}getnowblock`, async () => blockJson(await chain.block(await ceiling(solid))));
    // `getblock`: the newest block, or one by number or id; its transactions only with `detail`.
    routes.set(`${prefix}getblock`, async (p) => {
      const key = p.id_or_num === undefined ? '' : String(p.id_or_num);
      const top = await ceiling(solid);
      let num = top;
      if (/^\d+$/.test(key)) num = Number(key);
      else if (TX_ID.test(key)) num = Number.parseInt(key.replace(/^0x/, '').slice(0, 16), 16);
      else if (key !== '') throw new BadRequest('id_or_num must be a block number or id');
      const block = num > top ? undefined : await chain.block(num);
      if (!block || (TX_ID.test(key) && blockIdOf(block) !== key.replace(/^0x/, '').toLowerCase())) return {};
      const json = (await blockJson(block)) as { transactions?: unknown };
      if (p.detail === true || p.detail === 'true') return json;
      const { transactions: _omitted, ...header } = json;
      return header;
    });
    routes.set(`${prefix}getblockbynum`, async (p) => {
      const num = intParam(p, 'num', -1);
      if (num < 0) throw new BadRequest('num is required');
      return blockJson(await chain.blockUpTo(num, solid));
    });
    routes.set(`${prefix}getblockbyid`, async (p) => {
      const id = txIdParam(p).replace(/^0x/, '').toLowerCase();
      // A Tron block id starts with the block's number; the rest must match that block's id.
      const num = Number.parseInt(id.slice(0, 16), 16);
      const block = await chain.blockUpTo(num, solid);
      return block && blockIdOf(block) === id ? blockJson(block) : {};
    });
    routes.set(`${prefix}gettransactionbyid`, async (p) =>
      view.transaction(txIdParam(p), await ceiling(solid)),
    );
    routes.set(`${prefix}gettransactioninfobyid`, async (p) => view.info(txIdParam(p), await ceiling(solid)));
    routes.set(`${prefix}gettransactioninfobyblocknum`, async (p) => {
      const num = intParam(p, 'num', -1);
      if (num < 0) throw new BadRequest('num is required');
      const block = await chain.blockUpTo(num, solid);
      return block ? view.blockInfos(block) : [];
    });
    routes.set(`${prefix}triggerconstantcontract`, (p) => trigger.constant(p, solid));
    routes.set(`${prefix}getaccount`, async (p) => {
      const address = addressParam(p, 'address');
      const tag = solid ? `0x${(await chain.solidified()).toString(16)}` : 'latest';
      const evm = `0x${address.slice(2)}`;
      const [wei, nonce] = await Promise.all([
        rpc.call<string>('eth_getBalance', [evm, tag]),
        rpc.call<string>('eth_getTransactionCount', [evm, tag]),
      ]);
      // Tron reports an account that never received anything as not existing at all.
      if (BigInt(wei) === 0n && BigInt(nonce) === 0n) return {};
      return {
        address: isVisible(p) ? toTronAddress(address) : address,
        balance: Number(BigInt(wei) / WEI_PER_SUN),
      };
    });
  }
  routes.set('/wallet/triggersmartcontract', (p) => trigger.trigger(p));
  routes.set('/wallet/deploycontract', (p) => deploy.build(p));
  routes.set('/wallet/getcontract', (p) => deploy.get(p));
  routes.set('/wallet/broadcasttransaction', (p) => broadcast.broadcastJson(p));
  routes.set('/wallet/broadcasthex', (p) => broadcast.broadcastHex(p));
  routes.set('/wallet/gettransactionfrompending', (p) => view.pending(txIdParam(p)));
  routes.set('/wallet/getchainparameters', async () => ({ chainParameter: CHAIN_PARAMETERS }));
  return routes;
}
