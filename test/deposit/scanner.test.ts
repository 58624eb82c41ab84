import { getAddress, parseUnits } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { saveCursor } from '../../src/followers/store.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture, depositFollower } from './support.ts';

/**
 * The deposit scanner on `eth` (anvil serves the `finalized` tag: 64 blocks behind the head), driven
 * tick by tick: pending until final, credited once with deposit.confirmed, never credited when the
 * block leaves the chain first, and each transfer once whatever is scanned again.
 */

let f: DepositFixture;
let follower: ReturnType<typeof depositFollower>;

beforeAll(async () => {
  f = await depositFixture();
  follower = depositFollower(f);
});
afterAll(async () => {
  await f?.close();
});

/** Mines past anvil's finality (two epochs of 32 blocks) and ticks. */
async function finalize() {
  await f.mine(70);
  await follower.tick();
}

const deposits = (playerId: string) =>
  f.t.app.fork().execute<Body[]>(
    `select id, status, amount_raw::text, fee_raw::text, credited_raw::text, tx_hash, log_index, block_number::text
         from deposits where player_id = ? order by block_number, log_index`,
    [playerId],
  );

const eventsOf = async (playerId: string) => (await depositEvents(f)).filter((e) => e.player_id === playerId);

describe('the deposit scanner', () => {
  it('credits 5 USDT once final: deposit.confirmed with the exact fields, nothing before', async () => {
    const address = await f.address('five');
    const hash = await f.send('USDT', address, '5');
    const receipt = await f.provider.getTransactionReceipt(hash);
    await follower.tick();
    expect(await deposits('five')).toMatchObject([{ status: 'pending', amount_raw: '5000000' }]);
    expect(await eventsOf('five')).toEqual([]);
    await finalize();
    const [row] = await deposits('five');
    expect(row).toMatchObject({ status: 'credited', fee_raw: '500000', credited_raw: '4500000' });
    const events = await eventsOf('five');
    expect(events).toEqual([
      {
        event: 'deposit.confirmed',
        deposit_id: row.id,
        merchant_id: f.merchant.id,
        player_id: 'five',
        address: getAddress(address),
        network: 'eth',
        token: 'USDT',
        amount: '5',
        amount_raw: '4500000',
        credited: '4.5',
        fee: '0.5',
        tx_hash: hash.toLowerCase(),
        block: receipt!.blockNumber,
        occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(row.id).toMatch(/^dep_[A-Za-z0-9_-]{22}$/);
    const [delivery] = await f.t.app
      .fork()
      .execute<{ idempotency_key: string }[]>(
        `select e.idempotency_key from webhook_events e where e.subject_id = ?`,
        [row.id],
      );
    expect(delivery?.idempotency_key).toBe(`deposit.confirmed:${row.id}`);
    await finalize();
    expect(await eventsOf('five')).toHaveLength(1);
  });

  it('a transfer equal to the fee is recorded, never credited, and sends no event', async () => {
    const address = await f.address('dust');
    await f.send('USDT', address, '0.5');
    await finalize();
    expect(await deposits('dust')).toMatchObject([{ status: 'below_fee', credited_raw: '0' }]);
    expect(await eventsOf('dust')).toEqual([]);
  });

  it('two transfers in one transaction are two deposits and two events', async () => {
    const address = await f.address('twice');
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.player);
    await (await usdc.getFunction('approve')(f.contracts.multicall3, parseUnits('100', 6))).wait();
    const multicall = contractAt('Multicall3', f.contracts.multicall3, f.player);
    const transferFrom = (amount: string) => ({
      target: f.contracts.tokens.USDC!.address,
      allowFailure: false,
      callData: usdc.interface.encodeFunctionData('transferFrom', [
        f.player.address,
        address,
        parseUnits(amount, 6),
      ]),
    });
    const tx = await multicall.getFunction('aggregate3')([transferFrom('3'), transferFrom('4')]);
    await tx.wait();
    await finalize();
    const rows = await deposits('twice');
    expect(rows.map((r) => [r.tx_hash, r.credited_raw])).toEqual([
      [tx.hash.toLowerCase(), '2750000'],
      [tx.hash.toLowerCase(), '3750000'],
    ]);
    const events = await eventsOf('twice');
    expect(events.map((e) => e.credited).sort()).toEqual(['2.75', '3.75']);
    expect(new Set(events.map((e) => e.deposit_id)).size).toBe(2);
  });

  it('a deposit whose block leaves the chain before finality is never credited', async () => {
    const address = await f.address('reorged');
    const snapshot = await f.provider.send('evm_snapshot', []);
    await f.send('DAI', address, '7');
    await f.mine(2);
    await follower.tick();
    expect(await deposits('reorged')).toMatchObject([{ status: 'pending' }]);
    await f.provider.send('evm_revert', [snapshot]);
    await f.mine(5); // a longer chain without the transfer
    await follower.tick();
    expect(await deposits('reorged')).toEqual([]);
    await finalize();
    expect(await deposits('reorged')).toEqual([]);
    expect(await eventsOf('reorged')).toEqual([]);
    const ledger = await f.t.app
      .fork()
      .execute(`select 1 from payments where recipient = ?`, [address.toLowerCase()]);
    expect(ledger).toEqual([]);
  });

  it('a scanner that crashes mid-range and starts again, and a rescan from the start, credit each deposit once', async () => {
    const address = await f.address('crash');
    await f.send('USDT', address, '2');
    await f.mine(3);
    await f.send('USDT', address, '3');
    await f.mine(70);
    // The first process dies inside the transaction of the range: nothing of it commits.
    const crashing = depositFollower(f, {
      stream: (c) => ({
        ...c,
        async handle(tx, event) {
          await c.handle(tx, event);
          if (event.type === 'block') throw new Error('killed');
        },
      }),
    });
    await expect(crashing.tick()).rejects.toThrow('killed');
    expect(await deposits('crash')).toEqual([]);
    await depositFollower(f).tick();
    expect((await deposits('crash')).map((d) => d.status)).toEqual(['credited', 'credited']);
    // Rescan everything from the fixture's first block.
    const [start] = await f.provider
      .send('eth_getBlockByNumber', [`0x${f.startBlock.toString(16)}`, false])
      .then((b: { number: string; hash: string; parentHash: string; timestamp: string }) => [
        { number: Number(b.number), hash: b.hash, parentHash: b.parentHash, timestamp: Number(b.timestamp) },
      ]);
    await f.t.app.fork().transactional((tx) => saveCursor(tx, 'eth', 'deposits', start!));
    await depositFollower(f).tick();
    expect(await deposits('crash')).toHaveLength(2);
    expect((await eventsOf('crash')).map((e) => e.credited).sort()).toEqual(['1.5', '2.5']);
    expect(await eventsOf('five')).toHaveLength(1);
    expect(await eventsOf('twice')).toHaveLength(2);
  });
  it('a deposit found already final is written once, credited: no pending row updated after', async () => {
    const address = await f.address('found-final');
    // Every write of this player's deposits, in order (a trigger of the test's own database).
    await f.t.app.fork().execute(`
      create table deposit_writes (n serial, op text, status text, version int);
      create function log_deposit_write() returns trigger language plpgsql as $$
        begin
          if new.player_id = 'found-final' then
            insert into deposit_writes (op, status, version) values (tg_op, new.status, new.version);
          end if;
          return new;
        end $$;
      create trigger deposit_writes after insert or update on deposits
        for each row execute function log_deposit_write();`);
    await f.send('USDC', address, '2');
    await f.mine(70); // final (anvil's finalized tag) before the scanner first sees it
    await depositFollower(f).tick();
    const writes = () => f.t.app.fork().execute(`select op, status, version from deposit_writes order by n`);
    expect(await writes()).toEqual([{ op: 'INSERT', status: 'credited', version: 1 }]);
    const events = await eventsOf('found-final');
    expect(events).toMatchObject([{ event: 'deposit.confirmed', credited: '1.75', amount: '2' }]);
    // Replayed (the same range scanned again): no second write, no second event.
    await f.t.app.fork().execute(`delete from chain_cursors where stream = 'deposits'`);
    await depositFollower(f).tick();
    expect(await writes()).toHaveLength(1);
    expect(await eventsOf('found-final')).toHaveLength(1);
    await f.t.app
      .fork()
      .execute(`drop table deposit_writes cascade; drop function log_deposit_write cascade`);
  });

  it('shows operators deposits and issued addresses over GraphQL; merchants cannot list them', async () => {
    const token = await f.t.operatorToken();
    const { data, errors } = await f.t.graphql(
      token,
      `query ($m: ID!) {
         deposits(playerId: "dust") { nodes { id status amount fee credited token network block } }
         credited: deposits(merchantId: $m, status: credited, first: 1) { nodes { id } hasNextPage }
         depositAddresses(merchantId: $m, playerId: "five") { address wallet deployed playerId }
       }`,
      { m: f.merchant.id },
    );
    expect(errors).toBeUndefined();
    expect((data as Body).deposits.nodes).toEqual([
      expect.objectContaining({
        status: 'below_fee',
        amount: '0.5',
        fee: '0.5',
        credited: '0',
        token: 'USDT',
      }),
    ]);
    expect((data as Body).credited).toMatchObject({
      nodes: [{ id: expect.stringMatching(/^dep_/) }],
      hasNextPage: true,
    });
    expect((data as Body).depositAddresses).toEqual([
      {
        address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        wallet: f.wallet.toLowerCase(),
        deployed: false,
        playerId: 'five',
      },
    ]);
  });
});
