import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseUnits, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { createEvmClient } from '../../src/chains/evm/client.ts';
import { saveCursor } from '../../src/followers/store.ts';
import { type DepositFixture, depositFixture, depositFollower } from './support.ts';

/**
 * The scanner's cost does not depend on how many addresses were issued: 100 000 addresses in the
 * database and 1 000 blocks holding 2 000 transfers (200 of them to issued addresses) cost exactly the
 * RPC calls that the same scan costs with 10 addresses — one log query per chunk for every token, and
 * one indexed lookup per chunk in the database.
 */

const ISSUED = 100_000;
const TRANSFERS = 2_000;
const PER_TX = 100;
const BLOCKS = 1_000;

let f: DepositFixture;
let proxy: Server;
let calls = 0;

beforeAll(async () => {
  f = await depositFixture();
  const upstream = f.networks.networks[0]!.rpcUrls[0]!;
  // Counts JSON-RPC calls (each entry of a batch) on their way to the node.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body) as unknown;
      calls += Array.isArray(parsed) ? parsed.length : 1;
      const answer = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await f?.close();
});

it('100 000 issued addresses cost the same RPC calls as 10 for 1 000 blocks with 2 000 transfers', async () => {
  const em = f.t.app.fork();
  const issue = (from: number, to: number) =>
    em.execute(
      `insert into deposit_addresses (merchant_id, network, player_id, wallet, player_key, address, created_at)
       select ?, 'eth', 'p' || i, ?, '0x' || lpad(to_hex(i), 64, '0'), '0xab' || lpad(to_hex(i), 38, '0'), now()
         from generate_series(?::int, ?::int) as i`,
      [f.merchant.id, f.wallet.toLowerCase(), from, to],
    );
  const issued = (i: number) => `0xab${i.toString(16).padStart(38, '0')}`;
  // 2 000 transfers in 20 transactions spread over 1 000 blocks; every tenth goes to an issued address.
  const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.player);
  await (await usdc.getFunction('approve')(f.contracts.multicall3, parseUnits('1000', 6))).wait();
  const multicall = contractAt('Multicall3', f.contracts.multicall3, f.player);
  const first = await f.provider.getBlockNumber();
  for (let tx = 0; tx < TRANSFERS / PER_TX; tx++) {
    const calls3 = Array.from({ length: PER_TX }, (_, j) => {
      const n = tx * PER_TX + j;
      const to = n % 10 === 0 ? issued(1 + ((n * 37) % ISSUED)) : Wallet.createRandom().address;
      return {
        target: f.contracts.tokens.USDC!.address,
        allowFailure: false,
        callData: usdc.interface.encodeFunctionData('transferFrom', [
          f.player.address,
          to,
          300_000n + BigInt(n),
        ]),
      };
    });
    await (await multicall.getFunction('aggregate3')(calls3, { gasLimit: 10_000_000n })).wait();
    await f.mine(BLOCKS / (TRANSFERS / PER_TX) - 1);
  }
  await f.mine(70);
  const config = f.t.app.services.networks.get('eth')!;
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const client = createEvmClient({ network: { ...config, rpcUrls: [url] } });
  const start = await f.provider.getBlock(f.startBlock);
  /** Scans the whole range again from the fixture's first block; returns the RPC calls it made. */
  const scan = async () => {
    await em.execute(`delete from deposits`);
    await em.execute(`delete from payments where kind = 'transfer'`);
    await em.transactional((tx) =>
      saveCursor(tx, 'eth', 'deposits', {
        number: start!.number,
        hash: start!.hash!,
        parentHash: start!.parentHash,
        timestamp: start!.timestamp,
      }),
    );
    calls = 0;
    const follower = depositFollower(f, { client });
    for (let i = 0; i < 20; i++) if ((await follower.tick()).caughtUp) break;
    return calls;
  };
  const found = async () =>
    Number(
      (
        await em.execute<{ count: string }[]>(
          `select count(*)::text as count from deposits where block_number > ?`,
          [first],
        )
      )[0]!.count,
    );

  await issue(1, 10);
  await scan(); // the follower's first run also loads its window of headers: not counted
  const withFew = await scan();
  const fewFound = await found();
  await issue(11, ISSUED);
  const withMany = await scan();
  expect(await found()).toBe(TRANSFERS / 10);
  expect(fewFound).toBeLessThan(TRANSFERS / 10);
  expect(withMany).toBe(withFew);
  // Chunked range reads and header batches: far fewer calls than blocks, let alone addresses.
  expect(withMany).toBeLessThan(BLOCKS / 10);
}, 240_000);
