import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JsonRpcProvider } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/chains/anvil.ts';
import { SOLID_CACHE_BLOCKS, solidifiedBlockCache } from '../../src/chains/tron/blocks.ts';
import type { TronHttp } from '../../src/chains/tron/http.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';

/**
 * A long-running stack's cost must not grow with uptime. Held structurally, not by timing: nothing
 * keeps what the fixture processes print once they are up (no listener left on their output, which
 * is drained), and the caches of the idle path are bounded.
 */

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

describe('a long-running stack', () => {
  it("keeps no listener on anvil's output once it listens, however much it prints", async () => {
    const node = await startAnvil({ chainId: 31_999 });
    stops.push(() => node.stop());
    const child = node.child!;
    const provider = new JsonRpcProvider(node.rpcUrl, 31_999, { staticNetwork: true });
    // anvil logs every request: a few hundred lines of output.
    for (let i = 0; i < 50; i++) await provider.send('eth_blockNumber', []);
    provider.destroy();
    expect(child.stdout!.listenerCount('data')).toBe(0);
    expect(child.stderr!.listenerCount('data')).toBe(0);
    expect(child.stdout!.readableFlowing).toBe(true);
    expect(child.listenerCount('exit')).toBeLessThanOrEqual(1);
  });

  it('keeps the past block states anvil needs in memory: nothing is left on disk for a killed node', async () => {
    // anvil moves older states to ~/.foundry/anvil/tmp, which only an orderly exit removes.
    const cache = path.join(os.homedir(), '.foundry', 'anvil', 'tmp');
    const before = new Set(existsSync(cache) ? readdirSync(cache) : []);
    const node = await startAnvil({ chainId: 31_998 });
    stops.push(() => node.stop());
    const provider = new JsonRpcProvider(node.rpcUrl, 31_998, { staticNetwork: true });
    await provider.send('anvil_mine', ['0x600']);
    const head = Number(await provider.send('eth_blockNumber', []));
    // The recent past stays readable (the service reads at its final block, a few blocks back).
    const [funded] = (await provider.send('eth_accounts', [])) as string[];
    expect(
      BigInt(await provider.send('eth_getBalance', [funded, `0x${(head - 100).toString(16)}`])),
    ).toBeGreaterThan(0n);
    provider.destroy();
    const added = (existsSync(cache) ? readdirSync(cache) : []).filter((name) => !before.has(name));
    expect(added).toEqual([]);
  });

  it("keeps no listener on PostgreSQL's log once it is ready", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'uptime-pg-'));
    const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
    stops.push(() => db.stop());
    const child = db.child!;
    await db.createDatabase('uptime');
    expect(child.stderr!.listenerCount('data')).toBe(0);
    expect(child.stderr!.readableFlowing).toBe(true);
  });

  it("reads each Tron block once for all of a follower's consumers, and keeps a bounded number", async () => {
    const requests = new Map<string, number>();
    const http: TronHttp = {
      networkId: 'tron',
      health: () => [],
      async post<T>(route: string, body: object): Promise<T> {
        const num = (body as { num: number }).num;
        requests.set(route, (requests.get(route) ?? 0) + 1);
        const answer = route.endsWith('getblockbynum')
          ? {
              blockID: num.toString(16).padStart(64, '0'),
              block_header: { raw_data: { number: num, parentHash: '00', timestamp: num * 1000 } },
            }
          : [];
        return answer as T;
      },
    };
    const cache = solidifiedBlockCache(http);
    // Four consumers of one tick: the head's header, then each its logs and the range's last header.
    await cache.headers([10]);
    for (let c = 0; c < 4; c++) {
      await cache.logs({ address: '0x0000000000000000000000000000000000000001' }, 10, 10);
      await cache.headers([10]);
    }
    expect(Object.fromEntries(requests)).toEqual({
      '/walletsolidity/getblockbynum': 1,
      '/walletsolidity/gettransactioninfobyblocknum': 1,
    });
    // A long backfill: the cache holds the newest blocks only.
    await cache.logs({}, 11, 11 + 2 * SOLID_CACHE_BLOCKS);
    expect(cache.size).toBeLessThanOrEqual(SOLID_CACHE_BLOCKS);
  });
});
