/**
 * Standing deposit addresses (issue #30): the scanner's cold-cursor scan against raw eth_getLogs of
 * the same ranges plus one bulk INSERT of the matched rows, and the balance read against bare eth_calls.
 *
 *   npx tsx bench/deposits.ts [--addresses 100000] [--blocks 5000] [--transfers 2000] [--reads 200]
 *                             [--repeat 5] [--statements] [--cpu-prof FILE]
 *
 * `--statements` (with EMBEDDED_PG_STATEMENTS=1) lists what the database ran during each scan;
 * `--cpu-prof FILE` writes this process's CPU profile over the warm scans only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { JsonRpcProvider, parseEther, parseUnits, Wallet } from 'ethers';
import { type AnvilNode, startAnvil } from '../src/chains/anvil.ts';
import { contractAt } from '../src/chains/contracts.ts';
import { createEvmClient } from '../src/chains/evm/client.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { executeBound } from '../src/db/bulk.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import type { EntityManager } from '../src/db/orm.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../src/devstack/deploy.ts';
import { evmSource } from '../src/followers/evm-source.ts';
import { createFollower } from '../src/followers/follower.ts';
import { depositNetworkOf } from '../src/modules/deposit/deposit.chain.ts';
import { DEPOSITS_STREAM, depositConsumer } from '../src/modules/deposit/deposit.consumer.ts';
import { TRANSFER_TOPIC } from '../src/modules/deposit/deposit.transfers.ts';
import { printStatements, startProfiler } from './profile.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { benchApp, percentile, postmasterPid, rpc, treeCpu } from './support.ts';

const PER_TX = 100;
const NETWORKS = ['eth', 'bsc', 'polygon'];
/** Issue #30: the balance read's p50 at most 1.3 times one bare eth_call per network, in parallel. */
const BALANCE_TARGET = 1.3;

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      addresses: { type: 'string' },
      blocks: { type: 'string' },
      transfers: { type: 'string' },
      reads: { type: 'string' },
      repeat: { type: 'string' },
      statements: { type: 'boolean' },
      'cpu-prof': { type: 'string' },
    },
  });
  const addresses = Number(values.addresses ?? 100_000);
  const blocks = Number(values.blocks ?? 5_000);
  const transfers = Math.ceil(Number(values.transfers ?? 2_000) / PER_TX) * PER_TX;
  const reads = Number(values.reads ?? 200);
  /** Cold scans after the first, each with its own baseline: their median ratio says more on a loaded machine. */
  const repeat = Number(values.repeat ?? 5);
  /** Below the sizes the per-tick and per-chunk fixed costs dominate the ratio (smoke runs). */
  const small = blocks < 5_000 || transfers < 2_000;

  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-deposits-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const anvils: AnvilNode[] = [];
  try {
    const chains = await Promise.all(
      NETWORKS.map(async (id, i) => {
        const anvil = await startAnvil({ chainId: 31337 + i });
        anvils.push(anvil);
        const provider = new JsonRpcProvider(anvil.rpcUrl, 31337 + i, {
          staticNetwork: true,
          cacheTimeout: -1,
        });
        const deployer = await rich(provider);
        const contracts = await deployDevContracts(deployer, {
          tokens: DEFAULT_DEV_TOKENS.map((t) => ({ ...t, depositFee: '0.1' })),
          feeWallet: deployer.address,
        });
        return { id, chainId: 31337 + i, anvil, provider, deployer, contracts };
      }),
    );
    const networks = networkFileSchema.parse({
      networks: chains.map((c) => ({
        id: c.id,
        kind: 'evm',
        chainId: c.chainId,
        rpcUrls: [c.anvil.rpcUrl],
        tokens: Object.values(c.contracts.tokens).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
          depositFee: '0.1',
        })),
        contracts: contractsOf(c.contracts),
        finalityDepth: 1,
      })),
    });
    const url = await db.createDatabase('bench');
    if (values.statements && process.env.EMBEDDED_PG_STATEMENTS !== '1')
      throw new Error('--statements needs EMBEDDED_PG_STATEMENTS=1 (pg_stat_statements preloaded)');
    const { app, merchant } = await benchApp(url, networks);
    if (values.statements) await app.fork().execute('create extension if not exists pg_stat_statements');
    const wallet = Wallet.createRandom().address;
    for (const c of chains)
      await app.services.merchants.setSettlementWallet(app.fork(), merchant.id, c.id, wallet);

    // 1. Scanner throughput on `eth`.
    const eth = chains[0]!;
    await app.fork().execute(
      `insert into deposit_addresses (merchant_id, network, player_id, wallet, player_key, address, created_at)
         select ?, 'eth', 'p' || i, ?, '0x' || lpad(to_hex(i), 64, '0'), '0xab' || lpad(to_hex(i), 38, '0'), now()
           from generate_series(1, ?::int) as i`,
      [merchant.id, wallet.toLowerCase(), addresses],
    );
    const issued = (i: number) => `0xab${i.toString(16).padStart(38, '0')}`;
    const player = await rich(eth.provider);
    await fundPlayers(eth.deployer, [eth.contracts.tokens.USDC!], [player.address], String(transfers));
    const usdc = contractAt('TestToken', eth.contracts.tokens.USDC!.address, player);
    await (
      await usdc.getFunction('approve')(eth.contracts.multicall3, parseUnits(String(transfers), 6))
    ).wait();
    const multicall = contractAt('Multicall3', eth.contracts.multicall3, player);
    const from = (await eth.provider.getBlockNumber()) + 1;
    const gap = Math.max(0, Math.floor(blocks / (transfers / PER_TX)) - 1);
    for (let tx = 0; tx < transfers / PER_TX; tx++) {
      const calls = Array.from({ length: PER_TX }, (_, j) => {
        const n = tx * PER_TX + j;
        const to = n % 10 === 0 ? issued(1 + ((n * 7919) % addresses)) : Wallet.createRandom().address;
        return {
          target: eth.contracts.tokens.USDC!.address,
          allowFailure: false,
          callData: usdc.interface.encodeFunctionData('transferFrom', [player.address, to, 1_000_000n]),
        };
      });
      await (await multicall.getFunction('aggregate3')(calls, { gasLimit: 10_000_000n })).wait();
      if (gap > 0) await eth.provider.send('anvil_mine', [`0x${gap.toString(16)}`]);
    }
    await eth.provider.send('anvil_mine', ['0x46']); // past anvil's finalized block (64 behind the head)
    const to = await eth.provider.getBlockNumber();
    const scanned = to - from + 1;

    const tokens = Object.values(eth.contracts.tokens).map((t) => t.address);
    // The bench knows its own issued addresses: the matched rows without any lookup, the floor's part.
    const issuedSet = new Set(Array.from({ length: addresses }, (_, i) => issued(i + 1)));
    /** The baseline: raw eth_getLogs of the range in 2000-block chunks, then one bulk INSERT. */
    const measureBaseline = async () => {
      const t0 = performance.now();
      const rawLogs: RawLog[] = [];
      for (let a = from; a <= to; a += 2000)
        rawLogs.push(...(await getLogs(eth.anvil.rpcUrl, tokens, a, Math.min(to, a + 1999))));
      const rawSeconds = (performance.now() - t0) / 1000;
      const matchedLogs = rawLogs.filter((l) => issuedSet.has(`0x${l.topics[2]!.slice(26)}`));
      const insertSeconds = await bulkInsertBaseline(app.fork(), matchedLogs);
      return { rawSeconds, insertSeconds, logs: rawLogs.length, matched: matchedLogs.length };
    };
    const { rawSeconds, insertSeconds, logs, ...firstBaseline } = await measureBaseline();
    const baseline = rawSeconds + insertSeconds;

    const config0 = app.services.networks.get('eth')!;
    /** A cold scan of the range: a follower and a chain client of its own (chunk sizes start afresh). */
    const coldScan = async () => {
      const follower = createFollower({
        network: config0,
        source: evmSource(createEvmClient({ network: config0, logger: app.logger }), config0),
        consumers: [
          depositConsumer(
            { logger: app.logger, startBlock: from, canSweep: false },
            depositNetworkOf(config0)!,
          ),
        ],
        fork: () => app.fork(),
        fence: async () => {},
        logger: app.logger,
      });
      if (values.statements) await app.fork().execute('select pg_stat_statements_reset()');
      const t1 = performance.now();
      while (!(await follower.tick()).caughtUp) {}
      const seconds = (performance.now() - t1) / 1000;
      if (values.statements) await printStatements(app.fork());
      return seconds;
    };
    const scanSeconds = await coldScan();
    const [credited] = await app
      .fork()
      .execute<{ n: string }[]>(`select count(*)::text as n from deposits where status = 'credited'`);
    const matched = Number(credited!.n);
    if (matched !== transfers / 10) throw new Error(`credited ${matched} of ${transfers / 10} deposits`);
    const [cursor] = await app
      .fork()
      .execute<{ block_number: string }[]>(`select block_number from chain_cursors where stream = ?`, [
        DEPOSITS_STREAM,
      ]);
    console.log(
      `\n1. Scanner: ${scanned} blocks, ${logs} transfers (${matched} to ${addresses} issued addresses), cold cursor → ${cursor?.block_number}`,
    );
    console.log(
      `   baseline: raw eth_getLogs of the same ranges and tokens ${rawSeconds.toFixed(3)} s + one bulk INSERT of the ${firstBaseline.matched} matched rows ${insertSeconds.toFixed(3)} s = ${baseline.toFixed(3)} s`,
    );
    console.log(
      `   deposits consumer (logs, lookup, ledger, deposits, credit + webhooks)  ${scanSeconds.toFixed(3)} s  ` +
        `${(scanned / scanSeconds).toFixed(0)} blocks/s, ${(matched / scanSeconds).toFixed(0)} matched transfers/s, ` +
        `ratio baseline/consumer ${(baseline / scanSeconds).toFixed(3)} (target ≥ 0.5)`,
    );
    // The same scan again from a cold cursor (its rows deleted first), each after a baseline of its own:
    // the process is warm now, as a running service's is; the median ratio of the pairs.
    const again: { baseline: number; scan: number }[] = [];
    // CPU of this process and of PostgreSQL over the scans and over the baselines: less sensitive to
    // other load on a shared machine than the wall times.
    const postmaster = postmasterPid(path.join(dir, 'pg'));
    const nodeCpu = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const pgCpu = () => (postmaster ? treeCpu(postmaster) : 0);
    /** Reading /proc costs this process CPU too: read after its own figure at the start, before it at the end. */
    const cpuNow = () => {
      const pg = pgCpu();
      return { pg, node: nodeCpu() };
    };
    const cpu = { scan: { node: 0, pg: 0 }, baseline: { node: 0, pg: 0 } };
    const charge = (to: { node: number; pg: number }, before: { node: number; pg: number }) => {
      to.node += nodeCpu() - before.node;
      to.pg += pgCpu() - before.pg;
    };
    const profiler = values['cpu-prof'] ? await startProfiler() : undefined;
    for (let i = 0; i < repeat; i++) {
      await app.fork().execute(
        `delete from deposits where network = 'eth'; delete from payments where network = 'eth';
         delete from webhook_deliveries; delete from webhook_events;
         delete from chain_cursors where network = 'eth'; delete from chain_blocks where network = 'eth';
         delete from chain_followers where network = 'eth'`,
      );
      const c0 = cpuNow();
      const b = await measureBaseline();
      charge(cpu.baseline, c0);
      const c1 = cpuNow();
      await profiler?.resume();
      const scan = await coldScan();
      await profiler?.pause();
      charge(cpu.scan, c1);
      again.push({ baseline: b.rawSeconds + b.insertSeconds, scan });
      const [n] = await app
        .fork()
        .execute<{ n: string }[]>(`select count(*)::text as n from deposits where status = 'credited'`);
      if (Number(n!.n) !== matched) throw new Error(`scan ${i + 2} credited ${n!.n} of ${matched} deposits`);
    }
    if (profiler) await profiler.stop(values['cpu-prof']!);
    const ratios = again.map((a) => a.baseline / a.scan).sort((x, y) => x - y);
    const medianRatio = ratios[Math.floor(ratios.length / 2)] ?? 0;
    if (repeat > 0) {
      const scans = again.map((a) => a.scan).sort((x, y) => x - y);
      const bases = again.map((a) => a.baseline).sort((x, y) => x - y);
      console.log(
        `   again, ${repeat} times (warm process, cold cursor, a baseline before each): scanner median ${scans[Math.floor(repeat / 2)]!.toFixed(3)} s, ` +
          `baseline median ${bases[Math.floor(repeat / 2)]!.toFixed(3)} s, ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}, median ${medianRatio.toFixed(3)}`,
      );
      const per = (ms: number) => `${(ms / repeat).toFixed(0)} ms`;
      console.log(
        `   CPU per scan (mean of ${repeat}; load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores): scanner: this process ${per(cpu.scan.node)}, PostgreSQL ${per(cpu.scan.pg)}; ` +
          `baseline: this process ${per(cpu.baseline.node)}, PostgreSQL ${per(cpu.baseline.pg)} (the bulk INSERT's scratch table included)`,
      );
    }

    // 2. Balance latency, 3 networks × 3 tokens.
    const em = app.fork();
    const balanceMs: number[] = [];
    const bareMs: number[] = [];
    const readBalance = async () => {
      const a = performance.now();
      const result = await app.services.balances.balances(em, merchant.id);
      balanceMs.push(performance.now() - a);
      if (result.balances.length !== 9 || result.balances.some((b) => b.error))
        throw new Error(`balance read failed: ${JSON.stringify(result.balances.find((b) => b.error))}`);
    };
    const readBare = async () => {
      const b = performance.now();
      await Promise.all(
        chains.map((c) =>
          rpc(c.anvil.rpcUrl, 'eth_call', [
            {
              to: c.contracts.tokens.USDT!.address,
              data: usdc.interface.encodeFunctionData('balanceOf', [wallet]),
            },
            'latest',
          ]),
        ),
      );
      bareMs.push(performance.now() - b);
    };
    // The two take turns going first, so that neither always meets the nodes just after a pause.
    for (let i = 0; i < reads; i++) {
      if (i % 2 === 0) {
        await readBalance();
        await readBare();
      } else {
        await readBare();
        await readBalance();
      }
    }
    balanceMs.sort((x, y) => x - y);
    bareMs.sort((x, y) => x - y);
    const p = (s: number[], q: number) => `${percentile(s, q).toFixed(2)} ms`;
    const balanceRatio = percentile(balanceMs, 0.5) / percentile(bareMs, 0.5);
    console.log(`\n2. Balance: ${NETWORKS.length} networks × 3 tokens, ${reads} reads`);
    console.log(
      `   baseline: one bare eth_call per network, in parallel   p50 ${p(bareMs, 0.5)}  p95 ${p(bareMs, 0.95)}`,
    );
    console.log(
      `   GET /v1/balance's read (Multicall3 per network)        p50 ${p(balanceMs, 0.5)}  p95 ${p(balanceMs, 0.95)}  ` +
        `ratio p50 ${balanceRatio.toFixed(2)}× (target <= ${BALANCE_TARGET}×: ${balanceRatio <= BALANCE_TARGET ? 'met' : 'NOT met'})`,
    );
    await app.close();
    return [
      figure(
        `scanner, ${scanned} blocks, ${matched} of ${logs} transfers matched${small ? ' (too small to say: fixed costs per chunk dominate)' : ''}`,
        scanSeconds,
        's',
        { baseline, ratio: baseline / scanSeconds, target: { of: 'ratio', op: '≥', bound: 0.5 } },
      ),
      ...(repeat > 0
        ? [
            figure(
              `scanner again ×${repeat} (warm process), median${small ? ' (too small to say)' : ''}`,
              [...again.map((a) => a.scan)].sort((x, y) => x - y)[Math.floor(repeat / 2)]!,
              's',
              {
                baseline: [...again.map((a) => a.baseline)].sort((x, y) => x - y)[Math.floor(repeat / 2)]!,
                ratio: medianRatio,
                target: { of: 'ratio', op: '≥', bound: 0.5 },
              },
            ),
          ]
        : []),
      figure('balance read p50 (3 networks × 3 tokens)', percentile(balanceMs, 0.5), 'ms', {
        baseline: percentile(bareMs, 0.5),
        target: { of: 'ratio', op: '≤', bound: BALANCE_TARGET },
      }),
    ];
  } finally {
    for (const a of anvils) await a.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const contractsOf = (c: DevContracts) => ({
  forwarderFactory: c.forwarderFactory,
  forwarderImplementation: c.forwarderImplementation,
  multicall3: c.multicall3,
});

async function rich(provider: JsonRpcProvider): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('1000').toString(16)}`]);
  return wallet;
}

interface RawLog {
  topics: string[];
  data: string;
  address: string;
  transactionHash: string;
  logIndex: string;
  blockNumber: string;
}

/** The matched rows written as one INSERT into a scratch copy of the deposits table (then dropped). */
async function bulkInsertBaseline(em: EntityManager, logs: RawLog[]): Promise<number> {
  await em.execute('create table bench_deposits (like deposits including all)');
  const rows = logs.map((l, i) => ({
    id: `dep_bench_${i}`,
    paymentId: i + 1,
    txHash: l.transactionHash,
    logIndex: Number(l.logIndex),
    blockNumber: Number(l.blockNumber),
    to: `0x${l.topics[2]!.slice(26)}`,
    token: l.address.toLowerCase(),
    amount: BigInt(l.data).toString(),
  }));
  const t0 = performance.now();
  // Its rows sent as the service sends its own (a bind parameter, src/db/bulk.ts).
  await executeBound(
    em,
    `insert into bench_deposits (id, payment_id, address_id, merchant_id, network, player_id, token, token_address,
                                 decimals, amount_raw, fee_raw, credited_raw, tx_hash, log_index, block_number,
                                 status, created_at, updated_at)
     select r.id, r."paymentId", 0, 'm', 'eth', r."to", 'USDC', r.token, 6, r.amount::numeric, 0, r.amount::numeric,
            r."txHash", r."logIndex", r."blockNumber", 'pending', now(), now()
       from json_to_recordset($1::json) as r(id text, "paymentId" bigint, "txHash" text, "logIndex" int, "blockNumber" bigint, "to" text,
            token text, amount text)`,
    [JSON.stringify(rows)],
  );
  const seconds = (performance.now() - t0) / 1000;
  await em.execute('drop table bench_deposits');
  return seconds;
}

async function getLogs(url: string, tokens: string[], a: number, b: number): Promise<RawLog[]> {
  return (await rpc(url, 'eth_getLogs', [
    {
      fromBlock: `0x${a.toString(16)}`,
      toBlock: `0x${b.toString(16)}`,
      address: tokens,
      topics: [TRANSFER_TOPIC],
    },
  ])) as RawLog[];
}

runIfMain(import.meta.url, main);
