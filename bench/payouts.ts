/**
 * Payout relaying throughput, on a fresh anvil mining a block every second, an embedded PostgreSQL and
 * two real `npm run worker` processes (src/worker-main.ts):
 *
 *   npx tsx bench/payouts.ts [--payouts 200] [--ceiling N]
 *
 * 1. The ceiling of the same node, measured first in the same run: raw signed transfers per second
 *    from one wallet (all signed up front, sent at once, until the last is mined).
 * 2. Payouts from authorize to `completed` per second: `--payouts` payouts created and authorized
 *    through the service, relayed by the two workers, completed at depth 1 block.
 * Prints both and their ratio. Gas per payout against plain transfers and Permit2 is bench/gas.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Wallet } from 'ethers';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { authorizePayout } from '../src/modules/payout/payout.authorize.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);

import { type Figure, figure, runIfMain } from './report.ts';
import { payoutStack } from './support.ts';

/** The bench fails when no payout settles for this long, naming the unsettled ones. */
const STALL_MS = 60_000;

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: { payouts: { type: 'string' }, ceiling: { type: 'string' } },
  });
  const count = Number(values.payouts ?? 200);
  const stack = await payoutStack('payouts', 'payoutRouter');
  const { provider, payer, rich, url, networks, dir } = stack;
  const workers = new Set<ChildProcess>();
  try {
    // 1. The node's ceiling: one wallet's raw signed transfers — enough of them to span several 1 s
    // blocks, so the figure is a rate and not the luck of one block's timing.
    const ceilingCount = Number(values.ceiling ?? Math.max(3000, count * 5));
    const sender = await rich();
    const start = Number(BigInt(await provider.send('eth_getTransactionCount', [sender.address, 'pending'])));
    const feeData = await provider.getFeeData();
    const raws = await Promise.all(
      Array.from({ length: ceilingCount }, (_, i) =>
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
      start + ceilingCount
    )
      await new Promise((r) => setTimeout(r, 50));
    const ceilingMs = performance.now() - t0;

    // 2. Payouts through the service.
    const networksFile = path.join(dir, 'networks.json');
    writeFileSync(networksFile, JSON.stringify(networks));
    const secretsKey = randomBytes(32).toString('hex');
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: secretsKey,
      RUN_WORKER: 'false',
      LOG_LEVEL: 'error',
    });
    const app = await createApp({ config, networks, logger: createLogger('error') });
    const em = app.fork();
    const merchant = await app.services.merchants.create(em, { name: 'Bench' });
    await app.services.merchants.setSettlementWallet(em, merchant.id, 'eth', payer.address);
    const env = {
      ...process.env,
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: secretsKey,
      LOG_LEVEL: 'error',
      WORKER_CONCURRENCY: '4',
    };
    const startWorker = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/worker-main.ts')], {
        env: { ...env, LOG_LEVEL: 'info' },
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      workers.add(child);
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('worker started')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
    };
    await Promise.all([startWorker(), startWorker()]);

    const orders = [];
    for (let i = 0; i < count; i++) {
      const { payout, typedData } = await app.services.payouts.create(app.fork(), merchant.id, {
        network: 'eth',
        token: 'USDT',
        amount: '1',
        recipient: Wallet.createRandom().address,
      });
      const { EIP712Domain: _d, ...types } = typedData!.types;
      orders.push({
        id: payout.id,
        signature: await payer.signTypedData(typedData!.domain, types, typedData!.message),
      });
    }
    const t1 = performance.now();
    await Promise.all(
      orders.map((o) =>
        authorizePayout(app.services.payouts, app.fork(), merchant.id, {
          payout: o.id,
          signature: o.signature,
        }),
      ),
    );
    // Settled ones are counted; a minute without one more settling fails the bench naming the stuck.
    let settled = 0;
    let progressAt = performance.now();
    for (;;) {
      const [row] = await app
        .fork()
        .execute<{ done: number }[]>(
          `select count(*)::int as done from payouts where status in ('completed', 'failed')`,
        );
      const done = row?.done ?? 0;
      if (done >= count) break;
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
      await new Promise((r) => setTimeout(r, 100));
    }
    const payoutMs = performance.now() - t1;
    const failed = await app
      .fork()
      .execute<{ id: string; failure_reason: string | null }[]>(
        `select id, failure_reason from payouts where status = 'failed' order by created_at`,
      );
    await app.close();

    console.log(`payouts: ${count} through two worker processes, 1 s blocks, depth 1`);
    console.log(
      `  node ceiling (raw signed transfers, one wallet): ${rate(ceilingCount, ceilingMs)} tx/s (${ceilingCount} in ${ceilingMs.toFixed(0)} ms)`,
    );
    console.log(
      `  payouts authorize → completed:                  ${rate(count, payoutMs)} payouts/s (${payoutMs.toFixed(0)} ms; failed: ${failed.length})`,
    );
    const ratio = count / (payoutMs / 1000) / (ceilingCount / (ceilingMs / 1000));
    console.log(`  ratio payouts / ceiling: ${ratio.toFixed(3)}`);
    // Every payout here is funded, approved and signed in time: a failed one is a defect, not a figure.
    if (failed.length > 0)
      throw new Error(
        `payouts failed: ${failed.map((p) => `${p.id} (${p.failure_reason ?? 'no reason'})`).join(', ')}`,
      );
    return [
      figure('payouts authorize → completed', count / (payoutMs / 1000), 'payouts/s', {
        baseline: ceilingCount / (ceilingMs / 1000),
      }),
    ];
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(
      [...workers].map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))),
    );
    await stack.stop();
  }
}

runIfMain(import.meta.url, main);
