import { parseEther, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { type Body, type PayoutFixture, payoutFixture, signOrder, until } from './support.ts';

/**
 * The relayer's hard cases on a live worker: the hot wallet out of gas then funded, a stuck
 * transaction replaced with higher fees, a nonce taken by a transaction sent from the hot wallet
 * outside the service, and a relay that reverts on chain (nothing moves; the payout fails with the
 * reason once its deadline is final). Blocks are mined by the test (`mining`), automine toggled.
 */

let f: PayoutFixture;
let worker: Worker;
let mining = true;
let miner: ReturnType<typeof setInterval>;
let token: string;

beforeAll(async () => {
  f = await payoutFixture({ relay: { replaceAfterSeconds: 2 } });
  await f.approve('USDT');
  token = await f.t.operatorToken();
  worker = await startWorker(f.t.app, {
    followers: { payoutStartBlock: f.startBlock, sessionStartBlock: f.startBlock, standbyRetryMs: 100 },
  });
  miner = setInterval(() => {
    if (mining) void f.provider.send('anvil_mine', ['0x1']).catch(() => {});
  }, 250);
});
afterAll(async () => {
  clearInterval(miner);
  await f?.provider.send('evm_setAutomine', [true]);
  await worker?.stop();
  await f?.close();
});

async function authorized(amount: string) {
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount, recipient });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.payout as string, recipient, typedData: body.typed_data };
}
const status = async (id: string): Promise<Body> => (await f.call('/v1/payouts/status', { payout: id })).body;
const settled = (s: Body) => s.status === 'completed' || s.status === 'failed';
const relayTxs = (id: string) =>
  f.t.app.fork().execute<{ hash: string; nonce: string; status: string; max_fee: string; kind: string }[]>(
    `select t.hash, t.nonce, t.status, t.max_fee, t.kind from relay_transactions t
         join relay_requests r on r.id = t.request_id where r.subject_id = ? order by t.id`,
    [id],
  );

it('waits while the hot wallet is out of gas (logged once, shown to operators), then relays once funded', async () => {
  const balance = await f.provider.getBalance(f.relayer.address);
  const warn = vi.spyOn(f.t.app.services.relayer.deps.logger, 'warn');
  await f.provider.send('anvil_setBalance', [f.relayer.address, '0x0']);
  const order = await authorized('2');
  const wallets = await until(
    async () =>
      (await f.t.graphql(token, '{ relayerWallets { network address outOfGasSince queued } }')).data,
    (d: Body) => Boolean(d?.relayerWallets?.[0]?.outOfGasSince),
  );
  expect(wallets.relayerWallets[0]).toMatchObject({ network: 'eth', address: f.relayer.address, queued: 1 });
  expect((await status(order.id)).status).toBe('authorized');
  // Several attempts later, still one warning for the episode.
  await until(
    () =>
      f.t.app
        .fork()
        .execute<{ attempts: number }[]>('select attempts from relay_requests where subject_id = ?', [
          order.id,
        ]),
    (rows) => (rows[0]?.attempts ?? 0) >= 2,
  );
  expect(warn.mock.calls.filter(([m]) => String(m).includes('out of gas'))).toHaveLength(1);
  warn.mockRestore();
  await f.provider.send('anvil_setBalance', [f.relayer.address, `0x${balance.toString(16)}`]);
  expect((await until(() => status(order.id), settled, 40_000)).status).toBe('completed');
  const after = await f.t.graphql(token, '{ relayerWallets { outOfGasSince } }');
  expect(after.data.relayerWallets[0].outOfGasSince).toBeNull();
}, 60_000);

it('replaces a stuck transaction with higher fees at the same nonce; the one mined is the outcome', async () => {
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const order = await authorized('3');
  const txs = await until(
    () => relayTxs(order.id),
    (t) => t.length >= 2,
    20_000,
  );
  expect(txs.length).toBeGreaterThanOrEqual(2);
  expect(new Set(txs.map((t) => t.nonce)).size).toBe(1);
  expect(BigInt(txs[1]!.max_fee) * 100n).toBeGreaterThanOrEqual(BigInt(txs[0]!.max_fee) * 110n);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  const done = await until(() => status(order.id), settled, 30_000);
  expect(done.status).toBe('completed');
  // The payout completes at its confirmation depth; the relayer records its transaction mined once that
  // block is final by the service's rule, which may be a tick later.
  const final = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'mined'),
    30_000,
  );
  expect(final.filter((t) => t.status === 'mined')).toHaveLength(1);
  expect(final.find((t) => t.status === 'mined')!.hash).toBe(done.tx_hash);
  expect(await f.balance('USDT', order.recipient)).toBe(3_000_000n);
}, 60_000);

it('unjams a nonce the node refuses: the call is signed again with fees of now, alerting at error level', async () => {
  const error = vi.spyOn(f.t.app.services.relayer.deps.logger, 'error');
  const baseFee = (await f.provider.getBlock('latest'))!.baseFeePerGas!;
  mining = false;
  // The next block's base fee far above the latest block's: the relayer signs with fees the node refuses.
  await f.provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${(1_000n * 10n ** 9n).toString(16)}`]);
  try {
    const order = await authorized('5');
    await until(
      () =>
        f.t.app
          .fork()
          .execute<{ last_error: string | null }[]>(
            'select last_error from relay_requests where subject_id = ?',
            [order.id],
          ),
      (rows) => /base fee/.test(rows[0]?.last_error ?? ''),
      20_000,
    );
    const [refused] = await relayTxs(order.id);
    expect(refused).toMatchObject({ status: 'signed', kind: 'call' });
    // A block at that base fee: the fees of now show it, while the stored bytes stay refused.
    await f.provider.send('anvil_mine', ['0x1']);
    mining = true;
    const done = await until(() => status(order.id), settled, 40_000);
    expect(done.status).toBe('completed');
    // The payouts stream can settle the order before the relay watcher records its transaction mined.
    const txs = await until(
      () => relayTxs(order.id),
      (rows) => rows.some((t) => t.status === 'mined'),
      20_000,
    );
    expect(new Set(txs.map((t) => t.nonce)).size).toBe(1);
    const mined = txs.filter((t) => t.status === 'mined');
    expect(mined).toHaveLength(1);
    expect(mined[0]).toMatchObject({ kind: 'call', hash: done.tx_hash });
    expect(BigInt(mined[0]!.max_fee)).toBeGreaterThan(BigInt(refused!.max_fee));
    expect(error.mock.calls.some(([m]) => String(m).includes('refuses a relay transaction'))).toBe(true);
    error.mockRestore();
    expect(await f.balance('USDT', order.recipient)).toBe(5_000_000n);
  } finally {
    // The base fee as it was, for the cases after this one, whatever happened above.
    mining = true;
    await f.provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${baseFee.toString(16)}`]);
    await f.provider.send('anvil_mine', ['0x1']);
  }
}, 90_000);

it('recovers when a transaction sent from the hot wallet outside the service takes a relay’s nonce', async () => {
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const order = await authorized('4');
  const [first] = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'sent'),
    20_000,
  );
  // The operator (or a leaked key) sends from the hot wallet with the same nonce and a higher fee.
  const outside = new Wallet(f.relayer.privateKey, f.provider);
  const sent = await outside.sendTransaction({
    to: outside.address,
    value: 0n,
    nonce: Number(first!.nonce),
    maxFeePerGas: parseEther('0.0000002'),
    maxPriorityFeePerGas: parseEther('0.0000001'),
    gasLimit: 21_000n,
  });
  await f.provider.send('anvil_mine', ['0x1']);
  expect((await f.provider.getTransactionReceipt(sent.hash))?.status).toBe(1);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  const done = await until(() => status(order.id), settled, 40_000);
  expect(done.status).toBe('completed');
  expect(await f.balance('USDT', order.recipient)).toBe(4_000_000n);
  // The payout completes from the router's log; the watcher marks its transaction mined on its own tick.
  const txs = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'mined'),
    20_000,
  );
  expect(txs.some((t) => t.status === 'dropped' && t.nonce === first!.nonce)).toBe(true);
  expect(txs.find((t) => t.status === 'mined')!.nonce).not.toBe(first!.nonce);
}, 60_000);

it('a relay whose block leaves the chain waits again and is sent again, paid once', async () => {
  // No blocks but the relay's own (automine): it is mined, short of its depth of 2, when its block goes.
  mining = false;
  await new Promise((resolve) => setTimeout(resolve, 500)); // a mine already sent lands first
  const snapshot = await f.provider.send('evm_snapshot', []);
  const order = await authorized('6');
  await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'mined'),
    20_000,
  );
  await until(
    () => status(order.id),
    (s) => s.status === 'submitted',
  );
  expect((await status(order.id)).status).toBe('submitted');
  // Nothing is mined between the revert and the read: the watcher may send the same bytes again at
  // once, and automine would mine them before the balance is read.
  await f.provider.send('evm_setAutomine', [false]);
  await f.provider.send('evm_revert', [snapshot]);
  expect(await f.balance('USDT', order.recipient)).toBe(0n);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  const done = await until(() => status(order.id), settled, 40_000);
  expect(done.status).toBe('completed');
  expect(await f.balance('USDT', order.recipient)).toBe(6_000_000n);
  const txs = await relayTxs(order.id);
  expect(txs).toHaveLength(1); // the same signed bytes, sent again
  expect(txs[0]!.hash).toBe(done.tx_hash);
}, 60_000);

it('a lost relay whose order was executed by someone else is not sent again: its nonce is filled instead', async () => {
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const order = await authorized('7');
  const [sent] = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'sent'),
    20_000,
  );
  // Anyone may relay the signed order (it is public once authorized). In one JSON-RPC batch, so the
  // service's watcher cannot send its own again in between: the node loses the relay, the stranger's
  // execution arrives, a block is mined.
  const [row] = await f.t.app
    .fork()
    .execute<{ signature: string }[]>('select signature from payouts where id = ?', [order.id]);
  const stranger = new Wallet(Wallet.createRandom().privateKey, f.provider);
  await f.provider.send('anvil_setBalance', [stranger.address, '0xDE0B6B3A7640000']);
  const m = order.typedData.message;
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  const theirs = await stranger.signTransaction(
    await stranger.populateTransaction({
      to: f.contracts.payoutRouter,
      data: router.interface.encodeFunctionData('execute', [
        [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
        row!.signature,
      ]),
      gasLimit: 300_000n,
    }),
  );
  const batch = await fetch(f.provider._getConnection().url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'anvil_dropTransaction', params: [sent!.hash] },
      { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: [theirs] },
      { jsonrpc: '2.0', id: 3, method: 'anvil_mine', params: ['0x1'] },
    ]),
  });
  const answers = (await batch.json()) as { id: number; result?: string; error?: unknown }[];
  expect(answers.filter((a) => a.error)).toEqual([]);
  const theirsHash = answers.find((a) => a.id === 2)!.result!;
  expect((await f.provider.getTransactionReceipt(theirsHash))?.status).toBe(1);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  const done = await until(() => status(order.id), settled, 40_000);
  expect(done).toMatchObject({ status: 'completed', tx_hash: theirsHash.toLowerCase() });
  const txs = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.kind === 'filler' && x.status === 'mined'),
    20_000,
  );
  expect(txs.filter((t) => t.kind === 'call' && t.status === 'mined')).toEqual([]);
  expect(txs.find((t) => t.kind === 'filler')!.nonce).toBe(sent!.nonce);
  expect(await f.balance('USDT', order.recipient)).toBe(7_000_000n);
}, 60_000);

it('a relay reverted on chain moves nothing, and fails with the reason once the deadline is final', async () => {
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const before = await f.balance('USDT', f.payer.address);
  const order = await authorized('5');
  await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'sent'),
    20_000,
  );
  // The payout wallet withdraws the router's allowance with a higher tip: mined first, the relay reverts.
  const usdt = contractAt('TestToken', f.contracts.tokens.USDT!.address, f.payer);
  const nonce = Number(
    BigInt(await f.provider.send('eth_getTransactionCount', [f.payer.address, 'pending'])),
  );
  await usdt.getFunction('approve')(f.contracts.payoutRouter, 0n, {
    nonce,
    maxFeePerGas: parseEther('0.0000002'),
    maxPriorityFeePerGas: parseEther('0.0000001'),
  });
  await f.provider.send('anvil_mine', ['0x1']);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  const reverted = await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'mined'),
    20_000,
  );
  const minedHash = reverted.find((t) => t.status === 'mined')!.hash;
  expect((await f.provider.getTransactionReceipt(minedHash))?.status).toBe(0);
  expect((await status(order.id)).status).not.toBe('failed');
  // Past the deadline, on a final block: failed with the reason, and nothing moved.
  const head = (await f.provider.getBlock('latest'))!;
  await f.provider.send('evm_increaseTime', [Number(order.typedData.message.deadline) - head.timestamp + 1]);
  await f.provider.send('anvil_mine', ['0x50']);
  const done = await until(() => status(order.id), settled, 30_000);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'insufficient_allowance' });
  expect(await f.balance('USDT', order.recipient)).toBe(0n);
  expect(await f.balance('USDT', f.payer.address)).toBe(before);
}, 60_000);

it('a relay that reverts for good is given up only once its block is final', async () => {
  await f.approve('USDT'); // the case before withdrew the router's allowance
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const order = await authorized('3');
  await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'sent'),
    20_000,
  );
  // Mined past the order's deadline: the router refuses it (PayoutExpired), which no retry can mend.
  const head = (await f.provider.getBlock('latest'))!;
  await f.provider.send('evm_increaseTime', [Number(order.typedData.message.deadline) - head.timestamp + 1]);
  await f.provider.send('anvil_mine', ['0x1']);
  const minedBlock = await f.provider.getBlockNumber();
  await f.provider.send('evm_setAutomine', [true]);
  const request = () =>
    f.t.app
      .fork()
      .execute<{ status: string }[]>('select status from relay_requests where subject_id = ?', [order.id]);
  await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'mined'),
    20_000,
  );
  // Two more blocks, and the watcher has looked at the revert again after each (the relays stream
  // passed them): its block is not final, so the request is still watched, not given up.
  const relaysPassed = (block: number) =>
    until(
      () =>
        f.t.app
          .fork()
          .execute<{ block_number: string }[]>(
            "select block_number from chain_cursors where network = 'eth' and stream = 'relays'",
          ),
      (rows) => Number(rows[0]?.block_number ?? 0) >= block,
      20_000,
    );
  await f.provider.send('anvil_mine', ['0x2']);
  await relaysPassed(minedBlock + 2);
  await f.provider.send('anvil_mine', ['0x1']); // one more tick after the cursor moved
  await relaysPassed(minedBlock + 3);
  expect((await request())[0]!.status).toBe('mined');
  mining = true;
  // Its block final (anvil's finalized block is 64 behind the head) at once, not at the miner's pace,
  // which a loaded machine slows past the wait below.
  await f.provider.send('anvil_mine', ['0x50']);
  expect((await until(request, (rows) => rows[0]?.status === 'abandoned', 40_000))[0]!.status).toBe(
    'abandoned',
  );
  const done = await until(() => status(order.id), settled, 40_000);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'expired' });
  expect(await f.balance('USDT', order.recipient)).toBe(0n);
}, 90_000);

it('records relay outcomes only through the follower’s fence: a watcher that lost the network writes nothing', async () => {
  await f.approve('USDT'); // the case before withdrew the router's allowance
  mining = false;
  await f.provider.send('evm_setAutomine', [false]);
  const order = await authorized('6');
  await until(
    () => relayTxs(order.id),
    (t) => t.some((x) => x.status === 'sent'),
    20_000,
  );
  await worker.stop();
  await f.provider.send('anvil_mine', ['0x1']);
  const network = f.t.app.services.payoutChains.network('eth');
  const { watchEvm } = await import('../../src/relay/evm-watch.ts');
  const { LeadershipLost } = await import('../../src/followers/leadership.ts');
  const lost = f.t.app.services.relayer.fencedBy(async () => {
    throw new LeadershipLost('eth');
  });
  await expect(watchEvm(lost, network)).rejects.toThrow(LeadershipLost);
  expect((await relayTxs(order.id)).map((t) => t.status)).toEqual(['sent']);
  const leader = f.t.app.services.relayer.fencedBy((work) => f.t.app.fork().transactional(work));
  await watchEvm(leader, network);
  expect((await relayTxs(order.id)).map((t) => t.status)).toEqual(['mined']);
  await f.provider.send('evm_setAutomine', [true]);
  mining = true;
  worker = await startWorker(f.t.app, {
    followers: { payoutStartBlock: f.startBlock, sessionStartBlock: f.startBlock, standbyRetryMs: 100 },
  });
  expect((await until(() => status(order.id), settled, 30_000)).status).toBe('completed');
}, 60_000);
