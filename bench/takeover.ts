/**
 * Chain following across worker processes, on a fresh anvil and an embedded PostgreSQL, with two real
 * `npm run worker` processes (src/worker-main.ts) and the network's default poll interval:
 *
 *   npx tsx bench/takeover.ts [--payments 100] [--kill-every 20] [--pace 800] [--kills N]
 *
 * 1. Payment → `completed` latency over `--payments` payments (one every `--pace` ms), measured from
 *    the block that brings a payment to its confirmation depth to the committed completion: once with
 *    no kills (the baseline, same run), once with the leading worker SIGKILLed every `--kill-every`
 *    seconds (a fresh worker is started in its place, as a supervisor would). Target: p95 ≤ 3× baseline.
 * 2. Takeover time after each SIGKILL: until the standby leads the network (target ≤ 15 s).
 * 3. Notification latency: commit of a completion by a worker process → a subscriber in this process
 *    (LISTEN/NOTIFY), target p95 < 200 ms.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Wallet } from 'ethers';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { createOrm } from '../src/db/orm.ts';
import { PubSub } from '../src/db/pubsub.ts';
import { newId } from '../src/lib/ids.ts';
import { createLogger } from '../src/lib/logger.ts';
import { entities } from '../src/modules/index.ts';
import { PAYMENT_ROUTER } from '../src/modules/session/session.chain.ts';
import { orderRefOf } from '../src/modules/session/session.service.ts';
import { sessionChanged } from '../src/modules/session/session.transition.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { paymentChain, percentile, ROOT, script } from './support.ts';

const AMOUNT = 1_000_000n; // 1 USDC: the 3-block tier
const DEPTH = 3;
const ms = (n: number) => `${n.toFixed(0)} ms`;

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      payments: { type: 'string' },
      'kill-every': { type: 'string' },
      pace: { type: 'string' },
      kills: { type: 'string' },
    },
  });
  const payments = Number(values.payments ?? 100);
  const killEveryMs = Number(values['kill-every'] ?? 20) * 1000;
  const paceMs = Number(values.pace ?? 800);
  /** At most this many kills in the killing round (a smoke run makes one). */
  const maxKills = Number(values.kills ?? Number.POSITIVE_INFINITY);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-takeover-'));
  // The database (created and migrated) and the chain (deployed and funded) come up side by side.
  const [db, chain] = await Promise.allSettled([
    startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false }),
    paymentChain({ payments: 2 * payments + 20, amount: AMOUNT, depth: DEPTH }),
  ]);
  if (db.status === 'rejected' || chain.status === 'rejected') {
    if (db.status === 'fulfilled') await db.value.stop();
    if (chain.status === 'fulfilled') await chain.value.anvil.stop();
    rmSync(dir, { recursive: true, force: true });
    throw db.status === 'rejected' ? db.reason : (chain as PromiseRejectedResult).reason;
  }
  const { anvil, provider, contracts, usdc, payer, networks } = chain.value;
  const workers = new Set<ChildProcess>();
  try {
    const url = await db.value.createDatabase('bench');
    await migrate(url);
    const networksFile = path.join(dir, 'networks.json');
    writeFileSync(networksFile, JSON.stringify(networks));
    const secretsKey = randomBytes(32).toString('hex');

    const orm = await createOrm(url, { entities });
    const em = () => orm.em.fork();
    const merchantId = newId('merchant');
    await em().execute(
      `insert into merchants (id, name, webhook_url, created_at, updated_at)
                        values (?, 'Bench', 'http://127.0.0.1:9/hook', now(), now())`,
      [merchantId],
    );
    const settlement = Wallet.createRandom().address.toLowerCase();
    await em().execute(
      `insert into settlement_wallets (merchant_id, network, address, created_at, updated_at) values (?, 'eth', ?, now(), now())`,
      [merchantId, settlement],
    );
    const deadline = (await provider.getBlock('latest'))!.timestamp + 7 * 86_400;
    let nonce = Number(BigInt(await provider.send('eth_getTransactionCount', [payer.address, 'pending'])));

    /** A session at awaiting_payment (inserted directly: the API path is not what this measures). */
    async function newSession(): Promise<{ id: string; orderRef: string }> {
      const id = newId('session');
      const orderRef = orderRefOf(id);
      await em().execute(
        `insert into sessions (id, merchant_id, language, network, token, amount, wallet, payee, step, status, order_ref,
                               deadline, expires_at, created_at, updated_at, version)
         values (?, ?, 'en', 'eth', 'USDC', '1', ?, ?, 'awaiting_payment', 'pending', ?, ?, now() + interval '1 day', now(), now(), 0)`,
        [id, merchantId, payer.address.toLowerCase(), settlement, orderRef, deadline],
      );
      return { id, orderRef };
    }

    /** Pays a session and mines it to depth; resolves with the time the depth block exists. */
    async function payToDepth(orderRef: string): Promise<number> {
      const raw = await payer.signTransaction({
        to: contracts.paymentRouter,
        data: PAYMENT_ROUTER.encodeFunctionData('pay', [
          usdc.address,
          AMOUNT,
          settlement,
          orderRef,
          deadline,
        ]),
        nonce: nonce++,
        gasLimit: 200_000n,
        gasPrice: 10_000_000_000n,
        chainId: 31337n,
        type: 0,
      });
      await provider.send('eth_sendRawTransaction', [raw]);
      await provider.send('anvil_mine', [`0x${(DEPTH - 1).toString(16)}`]);
      return performance.now();
    }

    async function completedAt(id: string): Promise<number> {
      for (;;) {
        const [row] = await em().execute<{ status: string }[]>('select status from sessions where id = ?', [
          id,
        ]);
        if (row?.status === 'completed') return performance.now();
        await new Promise((r) => setTimeout(r, 5));
      }
    }

    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: secretsKey,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '2',
    };
    async function startWorker(): Promise<ChildProcess> {
      // As `npm run worker` starts it (its package.json script, without npm in between).
      const worker = script('worker');
      const child = spawn(worker.file, worker.args, {
        env,
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      workers.add(child);
      child.once('exit', () => workers.delete(child));
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('worker started')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
      return child;
    }
    const leader = async () =>
      (await em().execute<{ owner: string }[]>(`select owner from chain_followers where network = 'eth'`))[0]
        ?.owner;
    const pidOf = (owner: string | undefined) => Number(owner?.split(':')[1]);

    // Notifications, as an API process sees them.
    const pubsub = new PubSub({ databaseUrl: url, logger: createLogger('error') });
    const notified = new Map<string, number>();
    await pubsub.on(sessionChanged, ({ id }) => notified.set(id, performance.now()));

    await Promise.all([startWorker(), startWorker()]);
    while (!(await leader())) await new Promise((r) => setTimeout(r, 50));

    /** `payments` payments, one every `paceMs`; with `killEveryMs`, the leader is SIGKILLed that often. */
    async function round(kill: boolean) {
      const latencies: number[] = [];
      const notifyLags: number[] = [];
      const takeovers: number[] = [];
      let pendingKills = 0;
      const started = performance.now();
      let nextKill = started + killEveryMs;
      const pending: Promise<void>[] = [];
      for (let i = 0; i < payments; i++) {
        if (kill && takeovers.length + pendingKills < maxKills && performance.now() >= nextKill) {
          pendingKills++;
          nextKill += killEveryMs;
          const before = await leader();
          const victim = [...workers].find((w) => w.pid === pidOf(before));
          const killedAt = performance.now();
          victim?.kill('SIGKILL');
          pending.push(
            (async () => {
              for (;;) {
                const now = await leader();
                const led = [...workers].some((w) => w.pid === pidOf(now) && w !== victim);
                if (led && now !== before) break;
                await new Promise((r) => setTimeout(r, 20));
              }
              takeovers.push(performance.now() - killedAt);
              pendingKills--;
            })(),
          );
          startWorker().catch(() => {}); // a supervisor restarts it; it stands by
        }
        const session = await newSession();
        const atDepth = await payToDepth(session.orderRef);
        pending.push(
          completedAt(session.id).then((done) => {
            latencies.push(done - atDepth);
            const heard = notified.get(session.id);
            if (heard !== undefined) notifyLags.push(heard - done);
          }),
        );
        await new Promise((r) => setTimeout(r, paceMs));
      }
      await Promise.all(pending);
      return {
        latencies: latencies.sort((a, b) => a - b),
        notifyLags: notifyLags.sort((a, b) => a - b),
        takeovers,
      };
    }

    const calm = await round(false);
    const killed = await round(true);
    const p95 = (xs: number[]) => percentile(xs, 0.95);
    console.log(
      `\n1. Payment at depth → completed, ${payments} payments, one every ${paceMs} ms, default poll interval`,
    );
    console.log(
      `   no kills (baseline):          p50 ${ms(percentile(calm.latencies, 0.5))}  p95 ${ms(p95(calm.latencies))}  max ${ms(calm.latencies.at(-1)!)}`,
    );
    console.log(
      `   leader SIGKILLed every ${killEveryMs / 1000} s:   p50 ${ms(percentile(killed.latencies, 0.5))}  p95 ${ms(p95(killed.latencies))}  max ${ms(killed.latencies.at(-1)!)}`,
    );
    console.log(
      `   ratio p95 killed/baseline: ${(p95(killed.latencies) / p95(calm.latencies)).toFixed(2)} (target ≤ 3)`,
    );
    const t = killed.takeovers.sort((a, b) => a - b);
    console.log(
      `\n2. Takeover after SIGKILL (${t.length} kills): ${t.map((x) => ms(x)).join(', ')}; max ${ms(t.at(-1) ?? 0)} (target ≤ 15 000 ms)`,
    );
    const lags = [...calm.notifyLags, ...killed.notifyLags].sort((a, b) => a - b);
    console.log(
      `\n3. Notification of a completion by a worker process → subscriber here, relative to when polling (every 5 ms) first saw it committed (negative: the notice came first), ${lags.length} completions: p50 ${ms(percentile(lags, 0.5))}  p95 ${ms(p95(lags))}  max ${ms(lags.at(-1) ?? 0)} (target p95 < 200 ms)`,
    );
    await pubsub.close();
    await orm.close(true);
    if (!t.length) throw new Error('no leader was killed: give more --payments or a shorter --kill-every');
    return [
      figure('payment → completed p95, leader killed', p95(killed.latencies), 'ms', {
        baseline: p95(calm.latencies),
        target: { of: 'ratio', op: '≤', bound: 3 },
      }),
      figure('takeover after SIGKILL, max', t.at(-1)!, 'ms', {
        target: { of: 'value', op: '≤', bound: 15_000 },
      }),
      figure('completion notice p95 (vs polling)', p95(lags), 'ms', {
        target: { of: 'value', op: '<', bound: 200 },
      }),
    ];
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await anvil.stop();
    await db.value.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
