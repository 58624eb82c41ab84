/**
 * Payout relaying against the node's floor, on a fresh anvil mining a block every second, an embedded
 * PostgreSQL and two real `npm run worker` processes (src/worker-main.ts):
 *
 *   npx tsx bench/payouts.ts [--payouts 200] [--floor-runs 3] [--no-kill] [--statements]
 *
 * 1. The floor, measured in the same run on the same node with the workers running: the same number
 *    of transfers signed by one wallet, sent at once, until all are seen in a block (depth 1). The
 *    median of `--floor-runs` runs: each depends on where in the block interval it starts.
 * 2. `--payouts` payouts, created and signed beforehand, authorized at once through the service,
 *    relayed by the two workers, until all are `completed` at depth 1. One worker (the network's
 *    follower) is SIGKILLed as soon as the first relay transaction is stored: recovering from it is
 *    part of the time. Then every payout must be paid exactly once (one `PayoutExecuted` per order,
 *    exactly its amount at its recipient) and none failed.
 * `--statements` (with EMBEDDED_PG_STATEMENTS=1) prints what the database ran during the payouts.
 * Prints both times and the ratio floor / payouts (target ≥ 0.5: all complete within about two blocks
 * of the floor). Gas per payout against plain transfers and Permit2 is bench/gas.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Contract, Wallet } from 'ethers';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { authorizePayout } from '../src/modules/payout/payout.authorize.ts';
import { PAYOUT_EXECUTED_TOPIC } from '../src/modules/payout/payout.order.ts';
import { watchTimeline } from './payouts-timeline.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { cpuSeconds, fixtureCpu } from './stack.ts';
import { payoutStack, ROOT } from './support.ts';

/** The bench fails when no payout settles for this long, naming the unsettled ones. */
const STALL_MS = 60_000;
/** Authorizations in flight at once: the service's database pool (src/db/orm.ts). */
const AUTHORIZE_LANES = 10;
/** How often completion is looked at, for the floor and the payouts alike. */
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      payouts: { type: 'string' },
      'floor-runs': { type: 'string' },
      'no-kill': { type: 'boolean' },
      statements: { type: 'boolean' },
    },
  });
  const count = Number(values.payouts ?? 200);
  const floorRuns = Number(values['floor-runs'] ?? 3);
  const workers: { child: ChildProcess; pid: number; loaded: Promise<void>; started: Promise<void> }[] = [];
  // The two worker processes load their modules (seconds of compiling) while the chain and the
  // database are set up; each is then handed its environment and runs src/worker-main.ts.
  for (let i = 0; i < 2; i++) {
    // BENCH_WORKER_PROF=DIR: a CPU profile of each worker into DIR (written when it exits; run with --no-kill).
    const prof = process.env.BENCH_WORKER_PROF;
    const flags = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
    const child = spawn(
      process.execPath,
      [...flags, '--import', 'tsx', path.join(ROOT, 'bench/payouts-worker.ts')],
      {
        env: { ...process.env, NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'cryptopay-bench-compile-cache') },
        cwd: ROOT,
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        // Read to the end (an unread pipe would stall the worker once full).
        child.stderr!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes(text)) resolve();
        });
        child.once('exit', (code, signal) => reject(new Error(`worker exited with ${code ?? signal}`)));
      });
    const log = process.env.BENCH_WORKER_LOG;
    if (log) child.stderr!.on('data', (chunk: Buffer) => appendFileSync(`${log}.${i}`, chunk));
    const loaded = seen('modules loaded');
    const started = seen('worker started');
    loaded.catch(() => {});
    started.catch(() => {});
    workers.push({ child, pid: child.pid!, loaded, started });
  }
  const stack = await payoutStack('payouts', 'payoutRouter').catch(async (error) => {
    for (const w of workers) w.child.kill('SIGKILL');
    throw error;
  });
  const { provider, contracts, payer, rich, url, networks, dir } = stack;
  try {
    const networksFile = path.join(dir, 'networks.json');
    writeFileSync(networksFile, JSON.stringify(networks));
    const secretsKey = randomBytes(32).toString('hex');
    const env = {
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: secretsKey,
      // BENCH_WORKER_LOG_LEVEL=debug (with BENCH_WORKER_LOG=FILE): each relay send's steps, timed.
      LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'info',
      WORKER_CONCURRENCY: '4',
    };
    await Promise.all(workers.map((w) => w.loaded));
    for (const w of workers) w.child.stdin!.end(`${JSON.stringify(env)}\n`);
    // They start (migrations, connections) while the orders are created and signed here.
    const started = Promise.all(workers.map((w) => w.started));
    started.catch(() => {});

    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: secretsKey,
      RUN_WORKER: 'false',
      LOG_LEVEL: 'error',
    });
    const app = await createApp({ config, networks, logger: createLogger('error') });
    const merchant = await app.services.merchants.create(app.fork(), { name: 'Bench' });
    await app.services.merchants.setSettlementWallet(app.fork(), merchant.id, 'eth', payer.address);
    const orders: { id: string; signature: string; recipient: string; amountRaw: bigint }[] = [];
    for (let i = 0; i < count; i++) {
      const recipient = Wallet.createRandom().address;
      const { payout, typedData } = await app.services.payouts.create(app.fork(), merchant.id, {
        network: 'eth',
        token: 'USDT',
        amount: '1',
        recipient,
      });
      const { EIP712Domain: _d, ...types } = typedData!.types;
      orders.push({
        id: payout.id,
        recipient,
        amountRaw: BigInt(payout.amountRaw),
        signature: await payer.signTypedData(typedData!.domain, types, typedData!.message),
      });
    }
    await started;

    // 1. The floor: the same number of transfers from one wallet, sent at once, until all are mined.
    const sender = await rich();
    const feeData = await provider.getFeeData();
    const floors: number[] = [];
    for (let run = 0; run < floorRuns; run++) {
      const start = Number(
        BigInt(await provider.send('eth_getTransactionCount', [sender.address, 'pending'])),
      );
      const raws = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          sender.signTransaction({
            to: Wallet.createRandom().address,
            value: 1n,
            nonce: start + i,
            gasLimit: 21_000n,
            chainId: 31337n,
            maxFeePerGas: (feeData.maxFeePerGas ?? 10n ** 10n) * 2n,
            maxPriorityFeePerGas: feeData.maxPriorityFeePerGas ?? 10n ** 9n,
            type: 2,
          }),
        ),
      );
      const t0 = performance.now();
      await Promise.all(raws.map((raw) => provider.send('eth_sendRawTransaction', [raw])));
      while (
        Number(BigInt(await provider.send('eth_getTransactionCount', [sender.address, 'latest']))) <
        start + count
      )
        await sleep(POLL_MS);
      floors.push(performance.now() - t0);
    }
    const floorMs = median(floors);

    // 2. The payouts, one worker SIGKILLed as the first relay transaction is stored.
    const fromBlock = await provider.getBlockNumber();
    if (values.statements) {
      await app.fork().execute('create extension if not exists pg_stat_statements');
      await app.fork().execute('select pg_stat_statements_reset()');
    }
    // Where the CPU goes while the payouts run (a killed worker's share is counted up to its kill).
    const cpu = () => ({
      bench: process.cpuUsage(),
      workers: workers.map((w) => cpuSeconds(w.pid)),
      ...fixtureCpu(process.pid),
    });
    const cpuBefore = cpu();
    const workerCpu = [...cpuBefore.workers];
    const noteCpu = (i: number) => {
      workerCpu[i] = cpuSeconds(workers[i]!.pid);
    };
    const t1 = performance.now();
    const timeline = watchTimeline((sql) => app.fork().execute(sql), provider, count, t1);
    // The kill comes as soon as the first relay transaction is stored, while authorizations still
    // arrive: the leader may then hold claimed requests, stored transactions and the follower.
    let killed: string | undefined = values['no-kill'] ? 'none' : undefined;
    let authorizing = true;
    const killer = (async () => {
      while (!killed && authorizing) {
        const [row] = await app
          .fork()
          .execute<{ sent: number }[]>('select count(*)::int as sent from relay_transactions');
        if ((row?.sent ?? 0) > 0)
          killed = `${await killLeader(app, workers, noteCpu)} at ${(performance.now() - t1).toFixed(0)} ms`;
        else await sleep(POLL_MS / 2);
      }
    })();
    // All at once, as API requests would come; like the API, at most a pool's worth in the database at
    // a time (more would only queue for a connection, and under load time out waiting for one).
    const queue = [...orders];
    await Promise.all(
      Array.from({ length: AUTHORIZE_LANES }, async () => {
        for (let o = queue.shift(); o; o = queue.shift())
          await authorizePayout(app.services.payouts, app.fork(), merchant.id, {
            payout: o.id,
            signature: o.signature,
          });
      }),
    ).finally(() => {
      authorizing = false;
    });
    await killer;
    let settled = 0;
    let progressAt = performance.now();
    for (;;) {
      const [row] = await app.fork().execute<{ done: number; sent: number }[]>(
        `select (select count(*)::int from payouts where status in ('completed', 'failed')) as done,
                (select count(*)::int from relay_transactions) as sent`,
      );
      const done = row?.done ?? 0;
      if (done >= count) break;
      if (!killed && (row?.sent ?? 0) > 0) killed = await killLeader(app, workers, noteCpu);
      if (done > settled) {
        settled = done;
        progressAt = performance.now();
      } else if (performance.now() - progressAt > STALL_MS) {
        const stuck = await app.fork().execute<{ id: string; status: string; tx_hash: string | null }[]>(
          `select id, status, tx_hash from payouts where status not in ('completed', 'failed')
            order by created_at limit 10`,
        );
        throw new Error(
          `payouts stuck: ${count - done} unsettled, none settled for ${STALL_MS / 1000} s: ${stuck
            .map((p) => `${p.id} (${p.status}${p.tx_hash ? `, tx ${p.tx_hash}` : ''})`)
            .join(', ')}`,
        );
      }
      await sleep(POLL_MS);
    }
    const payoutMs = performance.now() - t1;
    const cpuAfter = cpu();
    await timeline.stop();
    const statements = values.statements
      ? await app.fork().execute<{ calls: number; ms: number; query: string }[]>(
          `select s.calls::int as calls, round(s.total_exec_time)::int as ms,
                  left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) as query
             from pg_stat_statements s
            where s.dbid = (select oid from pg_database where datname = current_database())
            order by s.total_exec_time desc limit 25`,
        )
      : [];
    if (process.env.BENCH_DUMP)
      writeFileSync(
        process.env.BENCH_DUMP,
        JSON.stringify(
          await app.fork().execute(
            `select t.nonce, t.kind, t.status, t.mined_block, r.id as request, r.attempts, r.last_error,
                    extract(epoch from t.created_at) * 1000 as created, extract(epoch from t.sent_at) * 1000 as sent,
                    extract(epoch from p.authorized_at) * 1000 as authorized
               from relay_transactions t join relay_requests r on r.id = t.request_id
               join payouts p on p.id = r.subject_id order by t.nonce, t.id`,
          ),
        ),
      );
    const failed = await app
      .fork()
      .execute<{ id: string; failure_reason: string | null }[]>(
        `select id, failure_reason from payouts where status = 'failed' order by created_at`,
      );
    const [txs] = await app
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from relay_transactions where kind = 'call'`);
    await app.close();

    // Paid exactly once: one execution per order on chain, and exactly its amount at its recipient.
    const executions = await provider.getLogs({
      address: contracts.payoutRouter,
      topics: [PAYOUT_EXECUTED_TOPIC],
      fromBlock,
      toBlock: 'latest',
    });
    const usdt = new Contract(
      contracts.tokens.USDT!.address,
      ['function balanceOf(address) view returns (uint256)'],
      provider,
    );
    const balances = await Promise.all(
      orders.map((o) => usdt.getFunction('balanceOf')(o.recipient) as Promise<bigint>),
    );
    const wrong = orders.filter((o, i) => balances[i] !== o.amountRaw);

    const blocks = (ms: number) => (ms / 1000).toFixed(1);
    console.log(`payouts: ${count} through two worker processes, 1 s blocks, depth 1`);
    console.log(
      `  floor (${count} transfers from one wallet, sent at once, mined): ${floorMs.toFixed(0)} ms (≈ ${blocks(floorMs)} blocks; runs ${floors.map((f) => f.toFixed(0)).join(', ')} ms)`,
    );
    console.log(
      `  payouts authorize → completed:                      ${payoutMs.toFixed(0)} ms (${(count / (payoutMs / 1000)).toFixed(1)} payouts/s; ${txs?.n ?? 0} relay transactions; failed: ${failed.length})`,
    );
    console.log(`  worker SIGKILLed mid-run: ${killed ?? 'none (no relay transaction seen before the end)'}`);
    console.log(
      `  paid exactly once: ${executions.length} executions for ${count} orders, ${wrong.length} recipients with a wrong balance`,
    );
    for (const line of timeline.lines()) console.log(line);
    const benchCpu = process.cpuUsage(cpuBefore.bench);
    const workerShares = cpuAfter.workers.map(
      (after, i) => Math.max(after, workerCpu[i]!) - cpuBefore.workers[i]!,
    );
    console.log(
      `  CPU during the payouts (s, over ${(payoutMs / 1000).toFixed(1)} s; load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores): bench process (authorizations) ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(2)}, workers ${workerShares.map((c) => c.toFixed(2)).join(' + ')}, postgres ${(cpuAfter.postgres - cpuBefore.postgres).toFixed(2)}, anvil ${(cpuAfter.anvil - cpuBefore.anvil).toFixed(2)}`,
    );
    if (statements.length)
      console.log('  statements during the payouts (pg_stat_statements, all processes), by time:');
    for (const r of statements)
      console.log(`    ${String(r.calls).padStart(6)} calls ${String(r.ms).padStart(6)} ms  ${r.query}`);
    const perBlock = new Map<number, number>();
    for (const e of executions) perBlock.set(e.blockNumber, (perBlock.get(e.blockNumber) ?? 0) + 1);
    console.log(
      `    executions per block: ${[...perBlock].map(([b, n]) => `${b}:${n}`).join(' ')} (from block ${fromBlock})`,
    );
    console.log(`  ratio floor / payouts: ${(floorMs / payoutMs).toFixed(3)} (target ≥ 0.5)`);
    // Every payout here is funded, approved and signed in time: a failed one is a defect, not a figure.
    if (failed.length > 0)
      throw new Error(
        `payouts failed: ${failed.map((p) => `${p.id} (${p.failure_reason ?? 'no reason'})`).join(', ')}`,
      );
    if (executions.length !== count || wrong.length > 0)
      throw new Error(
        `payouts not paid exactly once: ${executions.length} executions for ${count} orders; wrong balances at ${wrong
          .map((o) => o.id)
          .join(', ')}`,
      );
    return [
      figure(`payouts: ${count} authorized → completed`, payoutMs, 'ms', {
        baseline: floorMs,
        ratio: floorMs / payoutMs,
        target: { of: 'ratio', op: '≥', bound: 0.5 },
      }),
    ];
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((r) =>
            w.child.exitCode !== null || w.child.signalCode !== null ? r(null) : w.child.once('exit', r),
          ),
      ),
    );
    await stack.stop();
  }
}

/**
 * SIGKILLs the worker leading the network's follower (it watches the relays and settles the payouts,
 * and may be sending too), or the first worker when the leader is not known yet; says which.
 */
async function killLeader(
  app: Awaited<ReturnType<typeof createApp>>,
  workers: { child: ChildProcess; pid: number }[],
  beforeKill?: (index: number) => void,
): Promise<string> {
  const [row] = await app
    .fork()
    .execute<{ owner: string }[]>(`select owner from chain_followers where network = 'eth'`);
  const pid = Number(row?.owner.split(':')[1]);
  const leader = workers.find((w) => w.pid === pid);
  const victim = leader ?? workers[0]!;
  beforeKill?.(workers.indexOf(victim));
  victim.child.kill('SIGKILL');
  return `pid ${victim.pid} (${leader ? 'the follower’s leader' : 'not the leader'})`;
}

runIfMain(import.meta.url, main);
