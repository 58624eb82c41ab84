import { parseUnits, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/chains/evm/client.ts';
import type { ReadCall } from '../../src/chains/evm/reads.ts';
import { AppError } from '../../src/errors.ts';
import {
  deployMulticall,
  deployRuntime,
  deployTokens,
  freshAddress,
  fundedWallet,
  mined,
  networkOf,
  REVERTER_RUNTIME,
  type TestChain,
  type Tokens,
  testChain,
} from './support/chain.ts';
import { type RpcProxy, rpcError, startProxy } from './support/servers.ts';

let chain: TestChain;
let deployer: Wallet;
let owner: Wallet;
let tokens: Tokens;
let multicall: string;
let reverter: string;
let proxy: RpcProxy;
const spender = freshAddress();
const eoa = freshAddress();

beforeAll(async () => {
  chain = await testChain();
  deployer = await fundedWallet(chain.provider);
  owner = await fundedWallet(chain.provider);
  tokens = await deployTokens(deployer);
  multicall = await deployMulticall(deployer);
  reverter = await deployRuntime(deployer, REVERTER_RUNTIME);
  await mined(tokens.dai.getFunction('mint')(owner.address, parseUnits('1234.5', 18)));
  await mined(tokens.usdc.getFunction('mint')(owner.address, parseUnits('42.000001', 6)));
  await mined(tokens.usdt.getFunction('mint')(owner.address, parseUnits('7', 6)));
  const asOwner = (c: typeof tokens.dai) => c.connect(owner) as typeof c;
  await mined(asOwner(tokens.dai).getFunction('approve')(spender, parseUnits('10', 18)));
  await mined(asOwner(tokens.usdt).getFunction('approve')(spender, 123n));
  // The approvals cost gas; pin the native balance to a known value.
  await chain.provider.send('anvil_setBalance', [owner.address, `0x${parseUnits('3.25', 18).toString(16)}`]);
  proxy = await startProxy(chain.node.rpcUrl);
});
afterAll(() => proxy.close());

function reads(): ReadCall[] {
  const { dai, usdc, usdt } = tokens.addresses;
  return [
    ...[dai, usdc, usdt].map((token): ReadCall => ({ kind: 'balanceOf', token, owner: owner.address })),
    ...[dai, usdc, usdt].map(
      (token): ReadCall => ({ kind: 'allowance', token, owner: owner.address, spender }),
    ),
    ...[dai, usdc, usdt].map((token): ReadCall => ({ kind: 'decimals', token })),
    { kind: 'nativeBalance', owner: owner.address },
    { kind: 'balanceOf', token: eoa, owner: owner.address },
    { kind: 'decimals', token: reverter },
    { kind: 'balanceOf', token: usdt, owner: freshAddress() },
  ];
}

/** The same reads straight through ethers, independent of the code under test. */
async function direct(): Promise<unknown[]> {
  const { dai, usdc, usdt } = tokens;
  const all = [dai, usdc, usdt];
  return [
    ...(await Promise.all(all.map((t) => t.getFunction('balanceOf')(owner.address)))),
    ...(await Promise.all(all.map((t) => t.getFunction('allowance')(owner.address, spender)))),
    ...(await Promise.all(all.map(async (t) => BigInt(await t.getFunction('decimals')())))),
    await chain.provider.getBalance(owner.address),
  ];
}

const values = (results: { ok: boolean; value?: bigint }[]) =>
  results.map((r) => (r.ok ? r.value : undefined));

describe('batched contract reads', () => {
  it('give the same per-item results through Multicall3 and through plain batched eth_call', async () => {
    const withMulticall = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl], multicall) });
    const plain = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl]) });

    const a = await withMulticall.read(reads());
    const b = await plain.read(reads());
    expect(a).toEqual(b);
    expect(values(a.slice(0, 10))).toEqual(await direct());
    expect(values(a.slice(0, 10))).toEqual([
      parseUnits('1234.5', 18),
      parseUnits('42.000001', 6),
      parseUnits('7', 6),
      parseUnits('10', 18),
      0n,
      123n,
      18n,
      6n,
      6n,
      parseUnits('3.25', 18),
    ]);
    expect(a[10]).toEqual({ ok: false, error: expect.stringMatching(/no data/) });
    expect(a[11]).toEqual({ ok: false, error: 'call reverted' });
    expect(a[12]).toEqual({ ok: true, value: 0n });
  });

  it('send every read in one HTTP request (one aggregate3 or one JSON-RPC batch)', async () => {
    for (const via of [multicall, undefined]) {
      const client = createEvmClient({ network: networkOf(chain.node, [proxy.url], via) });
      expect(await client.transport.request('eth_chainId')).toBeTruthy(); // chain check + multicall probe out of the way
      await client.read(reads()); // first read may probe for Multicall3
      const before = { requests: proxy.requests, calls: proxy.calls.length };
      await client.read(reads());
      expect(proxy.requests - before.requests).toBe(1);
      const methods = proxy.calls.slice(before.calls);
      expect(methods.filter((m) => m === 'eth_call')).toHaveLength(via ? 1 : 12);
      expect(methods.filter((m) => m === 'eth_getBalance')).toHaveLength(1);
    }
  });

  it('chunk long read lists into several aggregate3 calls and keep the order', async () => {
    const owners = Array.from({ length: 230 }, () => freshAddress());
    const lucky = owners[177]!;
    await mined(tokens.usdc.getFunction('mint')(lucky, 5n));
    const calls = owners.map(
      (o): ReadCall => ({ kind: 'balanceOf', token: tokens.addresses.usdc, owner: o }),
    );
    const client = createEvmClient({ network: networkOf(chain.node, [proxy.url], multicall) });
    const before = proxy.calls.length;
    const results = await client.read(calls);
    expect(proxy.calls.slice(before).filter((m) => m === 'eth_call')).toHaveLength(3);
    expect(values(results)).toEqual(owners.map((o) => (o === lucky ? 5n : 0n)));
  });

  it('fall back to plain calls when Multicall3 is configured but not deployed, or when aggregate3 fails', async () => {
    const missing = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl], freshAddress()) });
    const expected = await createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl]) }).read(
      reads(),
    );
    expect(await missing.read(reads())).toEqual(expected);

    const failing = await startProxy(chain.node.rpcUrl);
    try {
      failing.hook = (call) => {
        const to = (call.params[0] as { to?: string } | undefined)?.to;
        return call.method === 'eth_call' && to?.toLowerCase() === multicall.toLowerCase()
          ? rpcError(call, -32000, 'out of gas')
          : undefined;
      };
      const client = createEvmClient({ network: networkOf(chain.node, [failing.url], multicall) });
      expect(await client.read(reads())).toEqual(expected);
    } finally {
      await failing.close();
    }
  });

  it('read at a past block', async () => {
    const client = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl], multicall) });
    const holder = freshAddress();
    await mined(tokens.dai.getFunction('mint')(holder, 1n));
    const block = await client.getBlockNumber();
    await mined(tokens.dai.getFunction('mint')(holder, 1n));
    const call: ReadCall = { kind: 'balanceOf', token: tokens.addresses.dai, owner: holder };
    expect(await client.read([call], { blockTag: block })).toEqual([{ ok: true, value: 1n }]);
    expect(await client.read([call])).toEqual([{ ok: true, value: 2n }]);
  });

  it('native balance, bad addresses and an unreachable node', async () => {
    const client = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl], multicall) });
    expect(await client.getNativeBalance(owner.address)).toBe(await chain.provider.getBalance(owner.address));
    await expect(client.read([{ kind: 'decimals', token: '0x1234' }])).rejects.toMatchObject({
      code: 'validation',
    });

    const down = createEvmClient({
      network: networkOf(chain.node, ['http://127.0.0.1:1'], multicall),
      rpc: { retries: 1, backoffBaseMs: 10 },
    });
    const error = await down.read(reads()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unavailable' });
  });
});
