/**
 * Chain listener benchmark, on a fresh anvil and an embedded PostgreSQL:
 *
 *   npx tsx bench/listener.ts [--payments 200] [--poll 100] [--blocks 10000] [--backfill 2000]
 *
 * 1. Detection latency: the `listen_network` task runs under graphile-worker; each payment is mined,
 *    then the blocks that bring it to its confirmation depth; measured from the moment that last block
 *    exists to the moment the session's settlement is committed (seen `completed` in the database).
 * 2. Backfill: `--blocks` blocks holding `--backfill` payments are caught up from a cold checkpoint by
 *    one listener pass (scan, record, confirm, settle with webhook), next to the raw eth_getLogs rate of
 *    the same node over the same range in the same run.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { Logger, run } from 'graphile-worker';
import { listenNetworkTask, scheduleListener } from '../daemons/listen-network.ts';
import { createApp } from '../src/app.ts';
import { startAnvil } from '../src/chains/anvil.ts';
import { contractAt } from '../src/chains/contracts.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import type { EntityManager } from '../src/db/orm.ts';
import { DEFAULT_DEV_TOKENS, deployDevContracts } from '../src/devstack/deploy.ts';
import { newId } from '../src/lib/ids.ts';
import { createLogger } from '../src/lib/logger.ts';
import { PAYMENT_ROUTER, PAYMENT_TOPIC } from '../src/modules/session/session.chain.ts';
import { Session } from '../src/modules/session/session.entity.ts';
import { createListener } from '../src/modules/session/session.listener.ts';
import { orderRefOf } from '../src/modules/session/session.service.ts';
import { percentile } from './support.ts';

const AMOUNT = 1_000_000n; // 1 USDC: the 3-block tier
const DEPTH = 3;

const ms = (n: number) => `${n.toFixed(1)} ms`;

export async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      payments: { type: 'string' },
      poll: { type: 'string' },
      blocks: { type: 'string' },
      backfill: { type: 'string' },
    },
  });
  const latencyPayments = Number(values.payments ?? 200);
  const pollMs = Number(values.poll ?? 100);
  const backfillBlocks = Number(values.blocks ?? 10_000);
  const backfillPayments = Number(values.backfill ?? 2_000);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-listener-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const anvil = await startAnvil({ chainId: 31337 });
  try {
    const url = await db.createDatabase('bench');
    await migrate(url);
    const provider = new JsonRpcProvider(anvil.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1 });
    const deployer = await richWallet(provider);
    const contracts = await deployDevContracts(deployer, {
      tokens: [...DEFAULT_DEV_TOKENS],
      feeWallet: deployer.address,
    });
    const usdc = contracts.tokens.USDC!;
    const payer = await richWallet(provider);
    const total = BigInt(latencyPayments + backfillPayments) * AMOUNT;
    await (
      await contractAt('TestToken', usdc.address, deployer).getFunction('mint')(payer.address, total)
    ).wait();
    await (
      await contractAt('TestToken', usdc.address, payer).getFunction('approve')(
        contracts.paymentRouter,
        total,
      )
    ).wait();

    const networks = networkFileSchema.parse({
      networks: [
        {
          id: 'eth',
          kind: 'evm',
          chainId: 31337,
          rpcUrls: [anvil.rpcUrl],
          confirmations: [{ blocks: DEPTH }],
          tokens: Object.values(contracts.tokens).map((t) => ({
            symbol: t.symbol,
            address: t.address,
            decimals: t.decimals,
          })),
          contracts: { paymentRouter: contracts.paymentRouter, multicall3: contracts.multicall3 },
          pollIntervalMs: pollMs,
        },
      ],
    });
    const config = loadConfig({
      DATABASE_URL: url,
      NETWORKS_FILE: '(bench)',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      RUN_WORKER: 'false',
      LOG_LEVEL: 'error',
    });
    const app = await createApp({ config, networks, logger: createLogger('error') });
    const merchant = await app.services.merchants.create(app.fork(), {
      name: 'Bench',
      webhookUrl: 'http://127.0.0.1:9/hook',
    });
    await app.services.merchants.issueKey(app.fork(), merchant.id);
    const settlement = Wallet.createRandom().address;
    await app.services.merchants.setSettlementWallet(app.fork(), merchant.id, 'eth', settlement);

    const head = await provider.getBlock('latest');
    const deadline = head!.timestamp + 7 * 86_400;
    const sign = signer(payer, provider, contracts.paymentRouter, usdc.address, settlement, deadline);
    const deps = {
      fork: () => app.fork(),
      chains: app.services.sessionChains,
      config: app.config,
      logger: app.logger,
    };

    // 1. Detection latency under the real daemon.
    const latencySessions = await createSessions(
      app.fork(),
      merchant.id,
      payer.address,
      deadline,
      latencyPayments,
    );
    const startBlock = await provider.getBlockNumber();
    const runner = await run({
      connectionString: url,
      concurrency: 2,
      noHandleSignals: true,
      pollInterval: 100,
      logger: new Logger(() => () => {}),
      taskList: { listen_network: listenNetworkTask({ ...deps, options: { startBlock } }) },
    });
    await scheduleListener(app.fork(), 'eth');
    const latencies: number[] = [];
    const passTimes: number[] = [];
    for (const session of latencySessions) {
      // Payments arrive at random moments of the listener's poll cycle, as real ones do.
      await new Promise((r) => setTimeout(r, Math.random() * pollMs));
      await provider.send('eth_sendRawTransaction', [await sign(session.orderRef)]);
      await provider.send('anvil_mine', [`0x${(DEPTH - 1).toString(16)}`]);
      const atDepth = performance.now();
      await waitCompleted(app.fork(), session.id);
      latencies.push(performance.now() - atDepth);
    }
    await runner.stop();
    // The pass itself (no poll wait), for reference: one caught-up pass with nothing to do.
    const idle = createListener(deps, 'eth');
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await idle.pass();
      passTimes.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    passTimes.sort((a, b) => a - b);
    console.log(
      `\n1. Detection latency: block at depth ${DEPTH} → settlement committed (${latencyPayments} payments)`,
    );
    console.log(`   listen_network poll interval      ${pollMs} ms`);
    console.log(
      `   p50 ${ms(percentile(latencies, 0.5))}   p95 ${ms(percentile(latencies, 0.95))}   max ${ms(latencies.at(-1) ?? 0)}`,
    );
    console.log(
      `   idle pass (head + checkpoint)     p50 ${ms(percentile(passTimes, 0.5))}   p95 ${ms(percentile(passTimes, 0.95))}`,
    );
    console.log(
      `   p50 over poll interval / 2 (the expected wait):  ${(percentile(latencies, 0.5) / (pollMs / 2)).toFixed(2)}`,
    );

    // 2. Backfill: blocks holding payments, caught up from a cold checkpoint.
    const backfillSessions = await createSessions(
      app.fork(),
      merchant.id,
      payer.address,
      deadline,
      backfillPayments,
    );
    const from = (await provider.getBlockNumber()) + 1;
    const gap = Math.max(1, Math.floor(backfillBlocks / backfillPayments));
    for (const session of backfillSessions) {
      await provider.send('eth_sendRawTransaction', [await sign(session.orderRef)]);
      if (gap > 1) await provider.send('anvil_mine', [`0x${(gap - 1).toString(16)}`]);
    }
    const minedTo = from + backfillBlocks - 1;
    const missing = minedTo - (await provider.getBlockNumber());
    if (missing > 0) await provider.send('anvil_mine', [`0x${missing.toString(16)}`]);
    await provider.send('anvil_mine', [`0x${DEPTH.toString(16)}`]);
    const to = await provider.getBlockNumber();
    const blocks = to - from + 1;

    const raw = await rawGetLogs(anvil.rpcUrl, contracts.paymentRouter, from, to);

    await app.fork().execute(`delete from listener_checkpoints`);
    let recordedAt = 0;
    const cold = createListener(deps, 'eth', {
      startBlock: from,
      hooks: {
        afterCommit: (chunk) => {
          if (chunk.toBlock >= to) recordedAt = performance.now();
        },
      },
    });
    const t0 = performance.now();
    const result = await cold.pass();
    const elapsed = (performance.now() - t0) / 1000;
    const scanSeconds = (recordedAt - t0) / 1000;
    const completed = Number(
      (
        await app
          .fork()
          .execute<{ n: string }[]>(`select count(*) as n from sessions where status = 'completed'`)
      )[0]!.n,
    );
    if (result.payments !== backfillPayments || completed !== latencyPayments + backfillPayments) {
      throw new Error(
        `backfill settled ${result.payments}/${backfillPayments} payments (${completed} completed)`,
      );
    }
    const rawBps = blocks / raw.seconds;
    const bps = blocks / elapsed;
    console.log(
      `\n2. Backfill: ${blocks} blocks holding ${backfillPayments} payments, cold checkpoint, one pass`,
    );
    console.log(
      `   raw eth_getLogs (router filter, 2000-block chunks): ${raw.seconds.toFixed(3)} s = ${rawBps.toFixed(0)} blocks/s, ${(raw.logs / raw.seconds).toFixed(0)} logs/s (${raw.logs} logs)`,
    );
    console.log(
      `   raw eth_getLogs, one call over the whole range:    ${raw.single.toFixed(3)} s = ${(blocks / raw.single).toFixed(0)} blocks/s`,
    );
    console.log(
      `   listener scan + record + checkpoint:  ${scanSeconds.toFixed(3)} s = ${(blocks / scanSeconds).toFixed(0)} blocks/s, ${(backfillPayments / scanSeconds).toFixed(0)} payments/s (${result.chunks} chunks)`,
    );
    console.log(
      `   listener incl. confirm + settle + webhook: ${elapsed.toFixed(3)} s = ${bps.toFixed(0)} blocks/s, ${(backfillPayments / elapsed).toFixed(0)} payments/s`,
    );
    console.log(
      `   ratio listener/raw (blocks/s): scan ${(blocks / scanSeconds / rawBps).toFixed(3)}, end to end ${(bps / rawBps).toFixed(3)}`,
    );
    await app.close();
  } finally {
    await anvil.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function richWallet(provider: JsonRpcProvider): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('1000').toString(16)}`]);
  return wallet;
}

/** Sessions at awaiting_payment, inserted in bulk (the API path is not what this measures). */
async function createSessions(
  em: EntityManager,
  merchantId: string,
  wallet: string,
  deadline: number,
  n: number,
) {
  const now = new Date();
  const rows = Array.from({ length: n }, () => {
    const id = newId('session');
    return {
      id,
      merchant: merchantId,
      language: 'en',
      prefillNetwork: 'eth',
      prefillToken: 'USDC',
      prefillAmount: '1',
      network: 'eth',
      token: 'USDC',
      amount: '1',
      wallet: wallet.toLowerCase(),
      step: 'awaiting_payment' as const,
      status: 'pending' as const,
      orderRef: orderRefOf(id),
      deadline,
      expiresAt: new Date(now.getTime() + 86_400_000),
      createdAt: now,
      updatedAt: now,
    };
  });
  for (let i = 0; i < rows.length; i += 500) await em.insertMany(Session, rows.slice(i, i + 500));
  return rows;
}

/** Signs `pay(...)` for one session with the next nonce, locally (no estimation round trips). */
function signer(
  payer: Wallet,
  provider: JsonRpcProvider,
  router: string,
  token: string,
  merchant: string,
  deadline: number,
) {
  let nonce: number | undefined;
  return async (orderRef: string) => {
    nonce ??= Number(BigInt(await provider.send('eth_getTransactionCount', [payer.address, 'pending'])));
    return payer.signTransaction({
      to: router,
      data: PAYMENT_ROUTER.encodeFunctionData('pay', [token, AMOUNT, merchant, orderRef, deadline]),
      nonce: nonce++,
      gasLimit: 200_000n,
      gasPrice: 10_000_000_000n,
      chainId: 31337n,
      type: 0,
    });
  };
}

async function waitCompleted(em: EntityManager, id: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const [row] = await em.execute<{ status: string }[]>(`select status from sessions where id = ?`, [id]);
    if (row?.status === 'completed') return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`session ${id} did not complete`);
}

/** The node's own eth_getLogs rate over the same range and filter: 2000-block chunks, and one call. */
async function rawGetLogs(rpcUrl: string, router: string, from: number, to: number) {
  const call = async (a: number, b: number) => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getLogs',
        params: [
          {
            fromBlock: `0x${a.toString(16)}`,
            toBlock: `0x${b.toString(16)}`,
            address: router,
            topics: [PAYMENT_TOPIC],
          },
        ],
      }),
    });
    return ((await res.json()) as { result: unknown[] }).result.length;
  };
  let logs = 0;
  const t0 = performance.now();
  for (let a = from; a <= to; a += 2000) logs += await call(a, Math.min(to, a + 1999));
  const seconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await call(from, to);
  const single = (performance.now() - t1) / 1000;
  return { seconds, single, logs };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main()
    .then(() => process.exit(0))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
