import { type Contract, Interface, parseUnits } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abi, contractAt } from '../../src/chains/contracts.ts';
import { sweepBackoffMs } from '../../src/modules/deposit/sweep-hold.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { until } from '../payout/support.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture } from './support.ts';

/**
 * The sweeper with the whole worker: credited deposits leave their forwarders through one
 * `sweepMany` relayed by the relayer wallet, deploying each forwarder on its first sweep at exactly the
 * address the endpoint gave, the fee per deposit to the fee wallet; a forwarder the token refuses is
 * retried by a later sweep and what was credited never changes.
 */

let f: DepositFixture;
let worker: Worker | undefined;
/** The running block producer, if any: one `anvil_mine` at a time, so a loaded machine builds no backlog. */
let miner: { stop(): Promise<void> } | undefined;
function startMining() {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await f.provider.send('anvil_mine', ['0x8']).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  miner = {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
/** Moves the sweeper's clock forward (a refused forwarder backs off). */
let skew = 0;
const factory = new Interface(abi('ForwarderFactory'));
const units = (symbol: string, amount: string) => parseUnits(amount, f.contracts.tokens[symbol]!.decimals);

beforeAll(async () => {
  f = await depositFixture({ sweepMinimum: { DAI: '5' } });
});
afterAll(async () => {
  await miner?.stop();
  await worker?.stop();
  await f?.close();
});

async function start() {
  worker = await startWorker(f.t.app, {
    followers: {
      depositStartBlock: f.startBlock,
      standbyRetryMs: 100,
      sweepIntervalMs: 0,
      now: () => new Date(Date.now() + skew),
    },
  });
  // Blocks keep coming; anvil's finalized block trails the head by 64.
  startMining();
}

const sweeps = () =>
  f.t.app
    .fork()
    .execute<Body[]>(`select id, status, items, tx_hash, outcomes from sweeps order by created_at`);
const depositsOf = (playerId: string) =>
  f.t.app
    .fork()
    .execute<Body[]>(
      `select status, credited_raw::text, sweep_id, swept_at from deposits where player_id = ?`,
      [playerId],
    );

describe('the sweeper', () => {
  let a: string;
  let b: string;

  it('sweeps credited deposits of many forwarders in one transaction, deploying each where the endpoint said', async () => {
    a = await f.address('sweep-a');
    b = await f.address('sweep-b');
    const small = await f.address('sweep-small');
    await f.send('USDT', a, '4');
    await f.send('USDT', a, '6');
    await f.send('USDC', b, '3');
    await f.send('DAI', small, '1'); // below the DAI sweep minimum of 5
    expect(await f.provider.getCode(a)).toBe('0x');
    // All four final before the worker starts, so the first scan credits them together and one sweep
    // takes both forwarders (with blocks coming 8 at a time, finality could otherwise fall between them).
    await f.mine(72);
    await start();
    const [sweep] = await until(sweeps, (s) => s.length > 0 && s[0].status === 'done', 40_000);
    expect(sweep).toMatchObject({ status: 'done', items: 2 });
    const receipt = await f.provider.getTransactionReceipt(sweep.tx_hash);
    expect(receipt!.from).toBe(f.relayer.address);
    expect(receipt!.to).toBe(f.contracts.forwarderFactory);
    const events = receipt!.logs
      .filter((l) => l.address === f.contracts.forwarderFactory)
      .map((l) => factory.parseLog(l)!);
    expect(
      events
        .filter((e) => e.name === 'ForwarderDeployed')
        .map((e) => e.args.forwarder)
        .sort(),
    ).toEqual([a, b].sort());
    expect(await f.provider.getCode(a)).not.toBe('0x');
    // Each deposit paid its fee: 2 × 0.5 USDT and 0.25 USDC to the fee wallet, the rest to the wallet.
    expect(await f.balance('USDT', f.wallet)).toBe(units('USDT', '9'));
    expect(await f.balance('USDT', f.feeWallet)).toBe(units('USDT', '1'));
    expect(await f.balance('USDC', f.wallet)).toBe(units('USDC', '2.75'));
    expect(await f.balance('USDC', f.feeWallet)).toBe(units('USDC', '0.25'));
    expect(await f.balance('DAI', small)).toBe(units('DAI', '1'));
    expect((await depositsOf('sweep-a')).every((d) => d.sweep_id === sweep.id && d.swept_at)).toBe(true);
    expect(await depositsOf('sweep-small')).toMatchObject([
      { status: 'credited', sweep_id: null, swept_at: null },
    ]);
    const relays = await f.t.app.fork().execute(
      `select t.hash from relay_transactions t join relay_requests r on r.id = t.request_id
                 where r.kind = 'sweep' and r.subject_id = ?`,
      [sweep.id],
    );
    expect(relays).toHaveLength(1);
  });

  it('sweeps a forwarder again without deploying it, and a small balance once it reaches the minimum', async () => {
    const small = await f.address('sweep-small');
    await f.send('USDT', a, '2');
    await f.send('DAI', small, '4');
    const swept = (d: Body[]) => d.length > 0 && d.every((x: Body) => x.swept_at !== null);
    await until(() => depositsOf('sweep-small'), swept, 40_000);
    await until(() => depositsOf('sweep-a'), swept, 40_000);
    // The two may have been credited in different ticks, and so swept by one sweep or two.
    const later = (await sweeps()).slice(1);
    const names: string[] = [];
    for (const sweep of later) {
      const receipt = await f.provider.getTransactionReceipt(sweep.tx_hash);
      for (const log of receipt!.logs.filter((l) => l.address === f.contracts.forwarderFactory)) {
        const e = factory.parseLog(log)!;
        names.push(`${e.name}:${e.args.forwarder}`);
      }
    }
    expect(names.sort()).toEqual([`ForwarderDeployed:${small}`, `Swept:${a}`, `Swept:${small}`].sort());
    expect(await f.balance('USDT', f.wallet)).toBe(units('USDT', '10.5'));
    expect(await f.balance('DAI', f.wallet)).toBe(units('DAI', '5'));
  });

  it('a forwarder the token refuses stays credited and is swept by a later sweep once it can be', async () => {
    const c = await f.address('sweep-refused');
    await f.send('USDT', c, '8');
    const usdt = contractAt('TetherToken', f.contracts.tokens.USDT!.address, f.deployer) as Contract;
    await (await usdt.getFunction('addBlackList')(c)).wait();
    const failed = await until(
      sweeps,
      (s) => s.some((x) => x.status === 'done' && (x.outcomes ?? []).some((o: Body) => o.error)),
      40_000,
    );
    const refused = failed.find((x) => (x.outcomes ?? []).some((o: Body) => o.error))!;
    expect(refused.outcomes).toEqual([
      expect.objectContaining({
        address: c.toLowerCase(),
        amountRaw: '0',
        error: expect.stringMatching(/^0x/),
      }),
    ]);
    expect(await depositsOf('sweep-refused')).toMatchObject([
      { status: 'credited', credited_raw: '7500000' },
    ]);
    await until(
      () => depositsOf('sweep-refused'),
      (d) => d[0].sweep_id === null,
      10_000,
    );
    await (await usdt.getFunction('removeBlackList')(c)).wait();
    // It backs off after its failure: swept again once its wait is over.
    skew += sweepBackoffMs(1);
    await until(
      () => depositsOf('sweep-refused'),
      (d) => d[0].swept_at !== null,
      40_000,
    );
    expect(await f.balance('USDT', c)).toBe(0n);
    expect(await depositsOf('sweep-refused')).toMatchObject([
      { status: 'credited', credited_raw: '7500000' },
    ]);
    expect((await depositEvents(f)).filter((e) => e.player_id === 'sweep-refused')).toHaveLength(1);
  });

  it('shows operators the sweeps and the fee wallet’s take', async () => {
    const token = await f.t.operatorToken();
    const { data, errors } = await f.t.graphql(
      token,
      `{ sweeps(network: "eth", status: done) { nodes { id status items txHash outcomes { address amountRaw feeRaw error } } }
         sweepTotals { network token swept fees sweeps feeWallet } }`,
    );
    expect(errors).toBeUndefined();
    expect((data as Body).sweeps.nodes.length).toBeGreaterThanOrEqual(3);
    const totals = (data as Body).sweepTotals as Body[];
    const usdt = totals.find((x) => x.token === 'USDT')!;
    expect(usdt).toMatchObject({ network: 'eth', swept: '18', fees: '2', feeWallet: f.feeWallet });
    expect(BigInt(await f.balance('USDT', f.feeWallet))).toBe(units('USDT', '2'));
  });
  it('a deposit arriving while a sweep is on its way stays for the next sweep; the fee wallet takes each credited fee', async () => {
    const d = await f.address('sweep-mid');
    // One sweep at a time per network: the earlier ones settle first (they need final blocks).
    await until(sweeps, (s) => s.every((x: Body) => x.status === 'done' || x.status === 'failed'), 40_000);
    const walletBefore = await f.balance('USDC', f.wallet);
    const feesBefore = await f.balance('USDC', f.feeWallet);
    // Blocks only when this test mines them, and no automine: the sweep's transaction waits in the pool.
    await miner?.stop();
    await f.send('USDC', d, '4');
    await f.provider.send('evm_setAutomine', [false]);
    try {
      // Blocks until its sweep is decided (the deposit claimed by one), then none: the sweep's
      // transaction, sent after that commit, waits in the pool. Checked before each block is mined.
      await until(
        async () => {
          const rows = await depositsOf('sweep-mid');
          if (!rows[0]?.sweep_id) await f.provider.send('anvil_mine', ['0x1']);
          return rows;
        },
        (rows) => Boolean(rows[0]?.sweep_id),
        40_000,
      );
      const relayed = await until(
        async () => {
          const rows = await f.t.app.fork().execute<{ hash: string }[]>(
            `select t.hash from relay_transactions t join relay_requests r on r.id = t.request_id
               join deposits x on x.sweep_id = r.subject_id where x.player_id = 'sweep-mid'`,
          );
          const pending = await Promise.all(rows.map((r) => f.provider.getTransaction(r.hash)));
          return pending.some((t) => t && t.blockNumber === null) ? rows : [];
        },
        (rows) => rows.length > 0,
        40_000,
      );
      expect(relayed, 'the sweep transaction waits in the pool').not.toHaveLength(0);
      // A second deposit lands in the sweep's own block, ahead of it (a higher tip).
      const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.player);
      const nonce = Number(
        BigInt(await f.provider.send('eth_getTransactionCount', [f.player.address, 'pending'])),
      );
      const late = await usdc.getFunction('transfer')(d, units('USDC', '6'), {
        nonce,
        maxPriorityFeePerGas: 50n * 10n ** 9n,
        maxFeePerGas: 500n * 10n ** 9n,
      });
      await f.provider.send('anvil_mine', ['0x1']);
      const [sweepReceipt, lateReceipt] = await Promise.all([
        f.provider.getTransactionReceipt(relayed[0]!.hash),
        f.provider.getTransactionReceipt(late.hash),
      ]);
      expect(lateReceipt!.blockNumber).toBe(sweepReceipt!.blockNumber);
      expect(lateReceipt!.index).toBeLessThan(sweepReceipt!.index);
    } finally {
      await f.provider.send('evm_setAutomine', [true]);
      startMining();
    }
    const swept = (rows: Body[]) => rows.length === 2 && rows.every((x: Body) => x.swept_at !== null);
    await until(() => depositsOf('sweep-mid'), swept, 40_000);
    // Each deposit credited net of its fee reached the wallet; each fee reached the fee wallet.
    expect((await f.balance('USDC', f.wallet)) - walletBefore).toBe(units('USDC', '9.5'));
    expect((await f.balance('USDC', f.feeWallet)) - feesBefore).toBe(units('USDC', '0.5'));
    expect(await f.balance('USDC', d)).toBe(0n);
  });
});
