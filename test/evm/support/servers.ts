/**
 * Real failing endpoints for transport tests: a closed port, servers that hang, answer 500 or garbage,
 * and a JSON-RPC proxy in front of anvil that can be switched off or made to refuse chosen calls.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRpcCall {
  jsonrpc: '2.0';
  id: unknown;
  method: string;
  params: unknown[];
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A URL on which nothing listens (connection refused). */
export async function deadUrl(): Promise<string> {
  const { server, url } = await listen(() => {});
  await close(server);
  return url;
}

export interface FakeEndpoint {
  url: string;
  /** HTTP requests received. */
  hits: number;
  close(): Promise<void>;
}

/** An endpoint that accepts requests and answers how `behaviour` says: never, 500, or a garbage body. */
export async function brokenEndpoint(
  behaviour: 'hang' | '500' | 'garbage' | 'html-200',
): Promise<FakeEndpoint> {
  const state = { hits: 0 };
  const { server, url } = await listen((req, res) => {
    state.hits++;
    req.resume();
    if (behaviour === 'hang') return; // keep the socket open, never answer
    if (behaviour === '500') return void res.writeHead(500).end('internal error');
    if (behaviour === 'html-200')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"resu');
  });
  return {
    url,
    get hits() {
      return state.hits;
    },
    close: () => close(server),
  };
}

export type ProxyMode = 'forward' | 'reset' | 'hang' | '500';

/** Per-call hook: return a JSON-RPC response (object) to answer in place of anvil, 'hang' to stall the
 * whole HTTP request, or undefined to forward the call. */
export type CallHook = (
  call: JsonRpcCall,
) => Promise<object | 'hang' | undefined> | object | 'hang' | undefined;

export interface RpcProxy {
  url: string;
  mode: ProxyMode;
  hook?: CallHook;
  /** When set, a JSON array body is refused with one error object (a provider without batches). */
  refuseBatches: boolean;
  /** Methods of every call received, in order (batched calls included). */
  readonly calls: string[];
  /** HTTP requests received. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<RpcProxy> {
  const calls: string[] = [];
  let requests = 0;
  const forward = async (body: unknown) => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.json() as Promise<unknown>;
  };
  const proxy: RpcProxy = {
    url: '',
    mode: 'forward',
    refuseBatches: false,
    calls,
    get requests() {
      return requests;
    },
    close: async () => close(server),
  };
  const { server, url } = await listen(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (proxy.mode === 'reset') return void req.socket.destroy();
    if (proxy.mode === 'hang') return;
    if (proxy.mode === '500') return void res.writeHead(502).end('bad gateway');
    const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcCall | JsonRpcCall[];
    const list = Array.isArray(body) ? body : [body];
    for (const c of list) calls.push(c.method);
    if (Array.isArray(body) && proxy.refuseBatches) {
      return void send(res, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'batch requests are not supported' },
      });
    }
    const answers = await Promise.all(list.map(async (c) => (await proxy.hook?.(c)) ?? forward(c)));
    if (answers.includes('hang')) return;
    send(res, Array.isArray(body) ? answers : answers[0]);
  });
  proxy.url = url;
  return proxy;
}

function send(res: ServerResponse, json: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
}

/** A JSON-RPC error response to `call`. */
export const rpcError = (call: JsonRpcCall, code: number, message: string) => ({
  jsonrpc: '2.0',
  id: call.id,
  error: { code, message },
});
