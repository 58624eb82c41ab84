import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainView } from './chain.ts';
import { createEvmRpc, EvmUnavailable } from './evm-rpc.ts';
import { BadRequest, errorBody, type Params } from './params.ts';
import { createRoutes } from './routes.ts';
import { createTxStore } from './tx-store.ts';

/** How many blocks the solidified head trails the head; Tron's is 19 (two thirds of 27 witnesses, +1). */
export const DEFAULT_SOLIDIFIED_LAG = 19;
/** Requests larger than this are refused; a signed TRC-20 call is well under 1 KiB. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface TronFacadeOptions {
  /** JSON-RPC URL of the anvil chain the facade fronts (started with the Tron chain id). */
  anvilRpcUrl: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Blocks the solidified head trails the head by. */
  solidifiedLag?: number;
  /** JSON-lines file that keeps the txID ⇄ EVM hash map across restarts. */
  stateFile?: string;
}

/** A running facade: base URL for `/wallet/*` and `/walletsolidity/*`. */
export interface TronFacade {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  if (req.method !== 'POST') return params;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest('request body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return params;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequest('request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest('body must be an object');
  return { ...params, ...(body as Params) };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Starts the Tron full-node HTTP facade over an anvil chain. A development and test fixture, not a
 * Tron node: see docs/tron-facade.md for what it implements and what it fakes.
 */
export async function startTronFacade(options: TronFacadeOptions): Promise<TronFacade> {
  const rpc = createEvmRpc(options.anvilRpcUrl);
  const chain = createChainView(rpc, options.solidifiedLag ?? DEFAULT_SOLIDIFIED_LAG);
  const routes = createRoutes(rpc, chain, createTxStore(options.stateFile));

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://facade');
    const handler = routes.get(url.pathname.replace(/\/+$/, '').toLowerCase());
    if (!handler) return send(res, 404, errorBody(`${url.pathname} is not implemented by the Tron facade`));
    try {
      send(res, 200, await handler(await readParams(req, url)));
    } catch (error) {
      // A malformed request gets the node's 200 + {"Error"}; a dead anvil makes the facade degraded.
      if (error instanceof BadRequest) return send(res, 200, errorBody(error.message));
      if (error instanceof EvmUnavailable) return send(res, 503, errorBody(error.message));
      send(res, 500, errorBody(`facade error: ${(error as Error).message}`));
    }
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
