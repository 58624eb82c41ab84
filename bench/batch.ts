/**
 * Batch payouts of 100 items, on a fresh anvil mining a block every second and an embedded PostgreSQL:
 *
 *   npx tsx bench/batch.ts [--items 100]
 *
 * 1. Authorize → every item settled, through the service's own relayer and chain follower (an
 *    in-process worker), next to the block time it cannot beat (the relay's block plus depth 1).
 * 2. Database statements the settlement of the 100-item batch costs: the follower tick that records
 *    the router's 100 `ItemPaid` events and the one that completes the items, counted at the ORM
 *    (follower bookkeeping included), next to the 100+ round trips a per-item settlement would need.
 * Gas per item next to plain transfers is bench/gas.ts.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type Contract, Wallet } from 'ethers';
import { createApp } from '../src/app.ts';
import { contractAt } from '../src/chains/contracts.ts';
import { typesForEthers } from '../src/chains/payout-typed-data.ts';
import { loadConfig } from '../src/config.ts';
import { createOrm } from '../src/db/orm.ts';
import { evmSource } from '../src/followers/evm-source.ts';
import { createFollower } from '../src/followers/follower.ts';
import { createLogger } from '../src/lib/logger.ts';
import { authorizeBatch } from '../src/modules/batch/batch.authorize.ts';
import { batchConsumer } from '../src/modules/batch/batch.consumer.ts';
import { entities } from '../src/modules/index.ts';
import { startWorker } from '../src/worker/runner.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { payoutStack } from './support.ts';

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({ args: argv, options: { items: { type: 'string' } } });
  const n = Number(values.items ?? 100);
  const stack = await payoutStack('batch', 'batchPayoutRouter');
  const { provider, contracts, payer, relayer, url, networks } = stack;
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: url,
      NETWORKS_FILE: '(in memory)',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      RUN_WORKER: 'false',
      LOG_LEVEL: 'error',
    });
    const app = await createApp({ config, networks, logger: createLogger('error') });
    const merchant = await app.services.merchants.create(app.fork(), { name: 'Bench' });
    await app.services.merchants.setSettlementWallet(app.fork(), merchant.id, 'eth', payer.address);
    const newBatch = async () => {
      const view = await app.services.batches.create(app.fork(), merchant.id, {
        network: 'eth',
        token: 'USDT',
        items: Array.from({ length: n }, () => ({ recipient: Wallet.createRandom().address, amount: '1' })),
      });
      const td = view.typedData!;
      return {
        id: view.batch.id,
        td,
        signature: await payer.signTypedData(td.domain, typesForEthers(td), td.message),
      };
    };

    // 1. Through the relayer and the follower.
    const startBlock = await provider.getBlockNumber();
    const worker = await startWorker(app, { followers: { payoutStartBlock: startBlock } });
    const relayed = await newBatch();
    const t0 = performance.now();
    await authorizeBatch(app.services.batches, app.fork(), merchant.id, {
      batch: relayed.id,
      signature: relayed.signature,
    });
    for (;;) {
      const { status } = await app.services.batches.get(app.fork(), merchant.id, relayed.id);
      if (status === 'completed' || status === 'partially_completed' || status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const settleMs = performance.now() - t0;
    await worker.stop();

    // 2. Statements of the settlement, counted at the ORM of a follower run here.
    let statements = 0;
    const counting = await createOrm(url, { entities, onQuery: () => statements++ });
    const counted = await newBatch();
    await authorizeBatch(app.services.batches, app.fork(), merchant.id, {
      batch: counted.id,
      signature: counted.signature,
    });
    const network = networks.networks[0]!;
    const follower = createFollower({
      network,
      source: evmSource(app.services.chainClients.evm(network), network),
      consumers: [
        batchConsumer(
          { chains: app.services.payoutChains, logger: app.logger },
          network,
          contracts.batchPayoutRouter,
        ),
      ],
      fork: () => counting.em.fork(),
      fence: async () => {},
      logger: app.logger,
    });
    await follower.tick(); // catches the stream up to the head before the batch executes
    const m = counted.td.message;
    const router = contractAt('BatchPayoutRouter', contracts.batchPayoutRouter, relayer) as Contract;
    const tx = await router.getFunction('executeBatch')(
      [m.token, m.merchant, m.items.map((i) => [i.recipient, i.amount]), m.nonce, m.deadline],
      counted.signature,
    );
    await tx.wait();
    statements = 0;
    for (let ticks = 0; ticks < 20; ticks++) {
      await follower.tick();
      if ((await app.services.batches.get(app.fork(), merchant.id, counted.id)).status === 'completed') break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const settled = (await app.services.batches.get(app.fork(), merchant.id, counted.id)).status;
    await counting.close(true);
    await app.close();

    console.log(`batch of ${n} items, 1 s blocks, depth 1`);
    console.log(
      `  authorize → every item settled: ${settleMs.toFixed(0)} ms (bounded below by the wait for the relay's block, up to 1 s)`,
    );
    console.log(
      `  settlement statements (record ${n} ItemPaid + complete ${n} items, follower bookkeeping included): ${statements} (${settled}); one per item would be ≥ ${2 * n}`,
    );
    if (settled !== 'completed') throw new Error(`the counted batch ended ${settled}, not completed`);
    return [
      // Baseline: one block time (1 s), which the relay's block alone can take.
      figure(`batch of ${n}: authorize → settled`, settleMs, 'ms', { baseline: 1000 }),
      figure(`batch of ${n}: settlement statements`, statements, 'statements', { baseline: 2 * n }),
    ];
  } finally {
    await stack.stop();
  }
}

runIfMain(import.meta.url, main);
