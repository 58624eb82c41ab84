import { startAnvil } from '../../chains/anvil.ts';
import { startTronFacade } from './server.ts';

/** Tron mainnet's `block.chainid` (0x2b6653dc), used as the dev chain's EVM chain id so D7's domain matches. */
export const TRON_CHAIN_ID = 728_126_428;
/** Seconds between dev blocks: blocks must keep coming for the solidified head to move past a deposit. */
export const DEV_BLOCK_TIME_S = 1;

export interface TronDevNodeOptions {
  /** Port of the facade (the `tron` rpc_url); 0 picks a free one. */
  port?: number;
  /** Port of the anvil chain behind it; 0 picks a free one. */
  anvilPort?: number;
  blockTime?: number;
  solidifiedLag?: number;
  /** Directory-free base path: `<stateBase>.anvil.json` and `<stateBase>.txs.jsonl` keep state across restarts. */
  stateBase?: string;
}

/** The dev stack's `tron` network: an anvil chain with the Tron chain id behind the facade. */
export interface TronDevNode {
  /** Base URL of the Tron HTTP API (`/wallet/*`, `/walletsolidity/*`). */
  url: string;
  /** JSON-RPC URL of the anvil chain, for deploying contracts and funding accounts. */
  anvilRpcUrl: string;
  chainId: number;
  stop(): Promise<void>;
}

/** Starts anvil (interval mining) and the facade over it. A development fixture, not a Tron node. */
export async function startTronDevNode(options: TronDevNodeOptions = {}): Promise<TronDevNode> {
  const anvil = await startAnvil({
    chainId: TRON_CHAIN_ID,
    port: options.anvilPort ?? 0,
    blockTime: options.blockTime ?? DEV_BLOCK_TIME_S,
    ...(options.stateBase ? { stateFile: `${options.stateBase}.anvil.json` } : {}),
  });
  try {
    const facade = await startTronFacade({
      anvilRpcUrl: anvil.rpcUrl,
      port: options.port ?? 0,
      ...(options.solidifiedLag === undefined ? {} : { solidifiedLag: options.solidifiedLag }),
      ...(options.stateBase ? { stateFile: `${options.stateBase}.txs.jsonl` } : {}),
    });
    return {
      url: facade.url,
      anvilRpcUrl: anvil.rpcUrl,
      chainId: TRON_CHAIN_ID,
      stop: async () => {
        await facade.stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
