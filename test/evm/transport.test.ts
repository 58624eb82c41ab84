import { keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnvilNode } from '../../src/chains/anvil.ts';
import { RpcError } from '../../src/chains/evm/rpc/errors.ts';
import { createRpcTransport, type RpcTransportOptions } from '../../src/chains/evm/rpc/transport.ts';
import { AppError } from '../../src/errors.ts';
import { workerAnvil, workerAnvilNamed } from '../support/anvil.ts';
import { networkOf } from './support/chain.ts';
import {
  brokenEndpoint,
  deadUrl,
  type FakeEndpoint,
  type RpcProxy,
  rpcError,
  startProxy,
} from './support/servers.ts';

/** Short limits so failure paths run in well under a second. */
const FAST: Partial<RpcTransportOptions> = {
  timeoutMs: 300,
  retries: 2,
  backoffBaseMs: 20,
  backoffMaxMs: 80,
  deadlineMs: 3_000,
};

let node: AnvilNode;
let proxy: RpcProxy;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  node = await workerAnvil();
  proxy = await startProxy(node.rpcUrl);
  closers.push(() => proxy.close());
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function broken(kind: Parameters<typeof brokenEndpoint>[0]): Promise<FakeEndpoint> {
  const endpoint = await brokenEndpoint(kind);
  closers.push(() => endpoint.close());
  return endpoint;
}

const transportOn = (urls: string[], options: Partial<RpcTransportOptions> = FAST) =>
  createRpcTransport({ network: networkOf(node, urls), options });

async function expectUnavailable(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('unavailable');
  expect((error as AppError).message).toContain('testnet');
  return error as AppError;
}

describe('RPC transport', () => {
  it('answers requests and batches from a healthy endpoint', async () => {
    const t = transportOn([node.rpcUrl]);
    expect(await t.request('eth_chainId')).toBe(`0x${node.chainId.toString(16)}`);
    const outcomes = await t.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000001', 'latest'] },
      { method: 'eth_no_such_method', params: [] },
    ]);
    expect(outcomes[0]).toEqual({ ok: true, result: `0x${node.chainId.toString(16)}` });
    expect(outcomes[1]!.ok).toBe(true);
    expect(outcomes[2]!.ok).toBe(false);
  });

  it('fails over from a dead port to the next endpoint and skips the dead one while it cools down', async () => {
    const dead = await deadUrl();
    const t = transportOn([dead, proxy.url], { ...FAST, cooldownMs: 60_000 });
    const before = proxy.requests;
    expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
    const health = t.health();
    expect(health[0]!.healthy).toBe(false);
    expect(health[0]!.lastError).toMatch(/ECONNREFUSED|request failed/);
    expect(health[1]!.healthy).toBe(true);
    // chain-id check + the call; then further calls go straight to the healthy endpoint.
    for (let i = 0; i < 3; i++) await t.request('eth_blockNumber');
    expect(proxy.requests - before).toBe(5);
    expect(t.health()[0]!.consecutiveFailures).toBe(1);
  });

  it('retries a cooled-down endpoint once its cool-down ends', async () => {
    const p = await startProxy(node.rpcUrl);
    closers.push(() => p.close());
    p.mode = 'reset';
    const t = transportOn([p.url, node.rpcUrl], { ...FAST, cooldownMs: 200 });
    await t.request('eth_blockNumber');
    expect(t.health()[0]!.healthy).toBe(false);
    p.mode = 'forward';
    await new Promise((r) => setTimeout(r, 250));
    await t.request('eth_blockNumber');
    expect(t.health()[0]).toMatchObject({ healthy: true, consecutiveFailures: 0 });
  });

  it('fails with unavailable, naming the network, quickly when every endpoint is dead', async () => {
    const t = transportOn([await deadUrl(), await deadUrl()]);
    const started = Date.now();
    const error = await expectUnavailable(t.request('eth_blockNumber'));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error.message).toMatch(/no RPC endpoint answered eth_blockNumber/);
    // A second call while both cool down still tries (last resort) and fails just as fast.
    const again = Date.now();
    await expectUnavailable(
      t.batch([
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_chainId', params: [] },
      ]),
    );
    expect(Date.now() - again).toBeLessThan(1_500);
  });

  it('times out a hanging endpoint and fails over instead of hanging', async () => {
    const hang = await broken('hang');
    const t = transportOn([hang.url, node.rpcUrl], { ...FAST, timeoutMs: 250 });
    const started = Date.now();
    expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(1_500);
    expect(t.health()[0]!.lastError).toMatch(/no answer within 250 ms/);
  });

  it('bounds the total time when every endpoint hangs', async () => {
    const a = await broken('hang');
    const b = await broken('hang');
    const t = transportOn([a.url, b.url], { ...FAST, timeoutMs: 200, deadlineMs: 900 });
    const started = Date.now();
    await expectUnavailable(t.request('eth_blockNumber'));
    expect(Date.now() - started).toBeLessThan(1_300);
  });

  it.each(['500', 'garbage', 'html-200'] as const)(
    'fails over from an endpoint answering %s',
    async (kind) => {
      const bad = await broken(kind);
      const t = transportOn([bad.url, node.rpcUrl]);
      expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
      expect(bad.hits).toBe(1);
      expect(t.health()[0]!.healthy).toBe(false);
    },
  );

  it('retries a transient failure of the only endpoint with backoff', async () => {
    const p = await startProxy(node.rpcUrl);
    closers.push(() => p.close());
    let failures = 2;
    p.hook = (call) =>
      call.method === 'eth_blockNumber' && failures-- > 0
        ? { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'rate limit exceeded' } }
        : undefined;
    const t = transportOn([p.url]);
    expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
    expect(p.calls.filter((m) => m === 'eth_blockNumber')).toHaveLength(3);
  });

  it('does not retry the node answer to a request (a revert is not a transport failure)', async () => {
    const p = await startProxy(node.rpcUrl);
    closers.push(() => p.close());
    const t = transportOn([p.url, node.rpcUrl]);
    const error = await t
      .request('eth_call', [{ to: '0x0000000000000000000000000000000000000001', data: '0xzz' }, 'latest'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(p.calls.filter((m) => m === 'eth_call')).toHaveLength(1);
    expect(t.health()[0]!.healthy).toBe(true);
  });

  it('skips an endpoint that serves another chain', async () => {
    const other = await workerAnvilNamed('evm-other-chain', 424_242);
    const t = transportOn([other.rpcUrl, node.rpcUrl]);
    expect(await t.request('eth_chainId')).toBe(`0x${node.chainId.toString(16)}`);
    expect(t.health()[0]!.lastError).toMatch(/serves chain 424242, expected 31337/);
    await expectUnavailable(transportOn([other.rpcUrl]).request('eth_blockNumber'));
  });

  it('splits large batches and falls back to single calls where batches are refused', async () => {
    const p = await startProxy(node.rpcUrl);
    closers.push(() => p.close());
    // web3_sha3 of distinct inputs: every answer is different, so any mix-up of ids would show.
    const inputs = Array.from({ length: 25 }, (_, i) => `0x${(i + 1).toString(16).padStart(2, '0')}`);
    const calls = inputs.map((data) => ({ method: 'web3_sha3', params: [data] }));
    const expected = inputs.map((data) => ({ ok: true, result: keccak256(data) }));
    const split = createRpcTransport({
      network: networkOf(node, [p.url]),
      // Counted requests: no timeout may retry one, however busy the machine.
      options: { ...FAST, timeoutMs: 10_000, deadlineMs: 20_000, maxBatchSize: 10 },
    });
    const before = p.requests;
    expect(await split.batch(calls)).toEqual(expected);
    expect(p.requests - before).toBe(1 + 3); // chain-id check + ceil(25/10) batches

    p.refuseBatches = true;
    expect(await transportOn([p.url]).batch(calls)).toEqual(expected);
  });

  it('turns a proxy switched off mid-way into failover, and both off into unavailable', async () => {
    const a = await startProxy(node.rpcUrl);
    const b = await startProxy(node.rpcUrl);
    closers.push(
      () => a.close(),
      () => b.close(),
    );
    const t = transportOn([a.url, b.url], { ...FAST, cooldownMs: 50 });
    await t.request('eth_blockNumber');
    a.mode = '500';
    expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
    b.mode = 'reset';
    await expectUnavailable(t.request('eth_blockNumber'));
    a.mode = 'forward';
    await new Promise((r) => setTimeout(r, 60));
    expect(await t.request('eth_blockNumber')).toMatch(/^0x/);
  });

  it('passes a JSON-RPC execution error through without failing over', async () => {
    const p = await startProxy(node.rpcUrl);
    closers.push(() => p.close());
    p.hook = (call) =>
      call.method === 'eth_gasPrice' ? rpcError(call, -32000, 'execution reverted') : undefined;
    const error = await transportOn([p.url, node.rpcUrl])
      .request('eth_gasPrice')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(-32000);
    expect(p.calls.filter((m) => m === 'eth_gasPrice')).toHaveLength(1);
  });
});

describe('postJson', () => {
  it('waits for an answer slower than a kept-alive connection may idle, and reuses the connection after', async () => {
    // The connection pool closes free connections after a second; one in use must not be cut then.
    const { createServer } = await import('node:http');
    const { postJson } = await import('../../src/chains/evm/rpc/http.ts');
    const sockets = new Set<unknown>();
    const server = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      setTimeout(() => res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}'), 1_500);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    expect(await postJson(url, { id: 1 }, 5_000)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' });
    expect(await postJson(url, { id: 1 }, 5_000)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' });
    expect(sockets.size).toBe(1);
    await expect(postJson(url, { id: 1 }, 200)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('names where a node that redirects points, without following it', async () => {
    const { createServer } = await import('node:http');
    const { postJson } = await import('../../src/chains/evm/rpc/http.ts');
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(308, { location: 'https://rpc.example.com/v2/key' }).end('Permanent Redirect');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await expect(postJson(url, { id: 1 }, 5_000)).rejects.toMatchObject({
      kind: 'http',
      message:
        "HTTP 308: the node's URL redirects to https://rpc.example.com/v2/key; configure the URL it redirects to",
    });
    expect(requests).toBe(1);
  });
});
