import { secp256k1 } from '@noble/curves/secp256k1';
import { getAddress, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { typedDataDigest } from '../../src/chains/payout-typed-data.ts';
import { cliFor } from '../support/cli.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/** Sections 4.17-4.19 over REST: every error, idempotency, signatures, the derived status. */

let f: PayoutFixture;
beforeAll(async () => {
  f = await payoutFixture();
});
afterAll(() => f?.close());

const recipients = (n: number) => Array.from({ length: n }, () => Wallet.createRandom().address);
const items = (n: number, amount = '1', prefix?: string) =>
  recipients(n).map((recipient, i) => ({
    recipient,
    amount,
    ...(prefix ? { external_id: `${prefix}-${i}` } : {}),
  }));
const create = (body: Record<string, unknown>) =>
  f.call('/v1/payouts/batch', { network: 'eth', token: 'USDT', items: items(3), ...body });

describe('batch create (4.17)', () => {
  it('refuses a total the batch router may not pull, naming the batch router', async () => {
    const { status, body } = await create({ items: items(3, '4') });
    expect(status).toBe(400);
    expect(body.error.code).toBe('insufficient_allowance');
    expect(body.error.details).toMatchObject({
      required: '12',
      available: '0',
      spender: getAddress(f.contracts.batchPayoutRouter),
    });
    await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
    const poor = await create({ items: items(2, '600') });
    expect(poor.body.error).toMatchObject({
      code: 'insufficient_funds',
      details: { required: '1200', available: '1000' },
    });
  });

  it('returns the batch with typed_data exactly per section 2.4 and every item a payout of its own', async () => {
    const list = items(3, '2.5', 'shape');
    const { status, body } = await create({ external_id: 'batch-shape', items: list });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      external_id: 'batch-shape',
      status: 'pending',
      network: 'eth',
      token: 'USDT',
      total: '7.5',
    });
    expect(body.batch).toMatch(/^pb_/);
    expect(body.items.map((i: Body) => [i.index, i.external_id, i.recipient, i.amount, i.status])).toEqual(
      list.map((x, i) => [i, x.external_id, getAddress(x.recipient), '2.5', 'pending']),
    );
    const td = body.typed_data;
    expect(td.primaryType).toBe('PayoutBatch');
    expect(td.types.PayoutBatch.map((x: Body) => `${x.name}:${x.type}`)).toEqual([
      'token:address',
      'merchant:address',
      'items:PayoutItem[]',
      'nonce:uint256',
      'deadline:uint256',
    ]);
    expect(td.types.PayoutItem.map((x: Body) => `${x.name}:${x.type}`)).toEqual([
      'recipient:address',
      'amount:uint256',
    ]);
    expect(td.domain).toMatchObject({
      name: 'BatchPayoutRouter',
      version: '1',
      verifyingContract: getAddress(f.contracts.batchPayoutRouter),
    });
    expect(td.message.items).toEqual(
      list.map((x) => ({ recipient: getAddress(x.recipient), amount: '2500000' })),
    );
    const router = contractAt('BatchPayoutRouter', f.contracts.batchPayoutRouter, f.provider);
    const m = td.message;
    expect(
      await router.getFunction('hashBatch')([
        m.token,
        m.merchant,
        m.items.map((i: Body) => [i.recipient, i.amount]),
        m.nonce,
        m.deadline,
      ]),
    ).toBe(typedDataDigest(td));
    // Each item is readable as a payout.
    const item = await f.call('/v1/payouts/status', { payout: body.items[1].payout });
    expect(item.body).toMatchObject({ status: 'pending', external_id: 'shape-1', amount: '2.5' });
    // The same again: the same batch and order; different: 409.
    const again = await create({ external_id: 'batch-shape', items: list });
    expect(again.body.batch).toBe(body.batch);
    expect(again.body.typed_data).toEqual(td);
    const other = await create({ external_id: 'batch-shape', items: list.slice(0, 2) });
    expect(other.status).toBe(409);
  });

  it('lets one of concurrent identical creates through', async () => {
    const list = items(2, '1', 'race');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create({ external_id: 'batch-race', items: list })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(results.map((r) => r.body.batch)).size).toBe(1);
    const [row] = await f.t.app
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from payouts where external_id like 'race-%'`);
    expect(row?.n).toBe(2);
  });

  it('keeps item references in the payouts namespace', async () => {
    await f.approve('USDT');
    await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: '1',
      recipient: recipients(1)[0],
      external_id: 'single-ref',
    });
    const clash = await create({
      items: [{ recipient: recipients(1)[0], amount: '1', external_id: 'single-ref' }],
    });
    expect(clash.status).toBe(409);
    expect(clash.body.error.message).toMatch(/single-ref/);
    const single = await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: '1',
      recipient: recipients(1)[0],
      external_id: 'shape-0',
    });
    expect(single.status).toBe(409);
    const dup = await create({
      items: [
        { recipient: recipients(1)[0], amount: '1', external_id: 'x' },
        { recipient: recipients(1)[0], amount: '1', external_id: 'x' },
      ],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.message).toMatch(/items\[1\]\.external_id/);
  });

  it('refuses at create a batch the network’s blocks cannot hold', async () => {
    const block = await f.provider.getBlock('latest');
    await f.provider.send('evm_setBlockGasLimit', ['0x989680']); // 10 M
    await f.provider.send('anvil_mine', ['0x1']);
    try {
      const { status, body } = await create({ items: items(100, '0.01') });
      expect(status).toBe(400);
      expect(body.error.message).toMatch(/block gas limit/);
    } finally {
      await f.provider.send('evm_setBlockGasLimit', [`0x${block!.gasLimit.toString(16)}`]);
      await f.provider.send('anvil_mine', ['0x1']);
    }
  });

  it.each([
    [{ items: [] }, 'validation', /at least one item/],
    [{ items: items(101) }, 'validation', /at most 100/],
    [{ items: [{ amount: '1' }] }, 'validation', /items\[0\]\.recipient/],
    [{ items: [...items(2), { recipient: '0x12', amount: '1' }] }, 'validation', /items\[2\]\.recipient/],
    [
      { items: [...items(1), { recipient: recipients(1)[0], amount: '0' }] },
      'validation',
      /items\[1\]\.amount/,
    ],
    [
      { items: [...items(1), { recipient: recipients(1)[0], amount: '1.0000001' }] },
      'validation',
      /items\[1\]\.amount/,
    ],
    [{ network: 'nope' }, 'unsupported', /network/],
    [{ token: 'ETH' }, 'unsupported', /native coin/],
    [{ network: 'bare' }, 'unsupported', /batch payout router/],
  ])('refuses %j', async (patch, code, message) => {
    const { status, body } = await create(patch as Record<string, unknown>);
    expect(status).toBe(400);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
  });
});

describe('batch authorize (4.18) and status (4.19)', () => {
  it('takes the payout wallet’s signature once: same again unchanged, another 409, a stranger 403', async () => {
    const { body } = await create({ items: items(2) });
    const stranger = await signOrder(Wallet.createRandom(), body.typed_data);
    expect(
      (await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature: stranger })).status,
    ).toBe(403);
    expect(
      (await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature: '0x00' })).status,
    ).toBe(400);
    const signature = await signOrder(f.payer, body.typed_data);
    const ok = await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('authorized');
    expect(ok.body.typed_data).toBeUndefined();
    expect(ok.body.items.map((i: Body) => i.status)).toEqual(['authorized', 'authorized']);
    const again = await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    expect(again.status).toBe(200);
    // A different valid signature of the same wallet over the same order (the high-s twin is normalised
    // to the same one, so use v 0/1 spelling: still the same signature after normalisation).
    const v01 = `${signature.slice(0, 130)}${(Number.parseInt(signature.slice(130), 16) - 27).toString(16).padStart(2, '0')}`;
    expect((await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature: v01 })).status).toBe(
      200,
    );
    // A different valid signature by the payout wallet (hardware wallets sign with random nonces).
    const digest = typedDataDigest(body.typed_data).slice(2);
    const other = secp256k1.sign(digest, f.payer.privateKey.slice(2), { extraEntropy: true });
    const otherSig = `0x${other.toCompactHex()}${(27 + other.recovery).toString(16)}`;
    expect(otherSig).not.toBe(signature);
    const conflict = await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature: otherSig });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');
    const relays = await f.t.app
      .fork()
      .execute<{ subject_id: string }[]>(
        `select subject_id from relay_requests where kind = 'batch' and subject_id like ?`,
        [`${body.batch}%`],
      );
    expect(relays.map((r) => r.subject_id)).toEqual([`${body.batch}#1`]);
    const status = await f.call('/v1/payouts/batch/status', { batch: body.batch });
    expect(status.body).toMatchObject({ batch: body.batch, status: 'authorized', total: '2' });
    const shown = (await cliFor(f.t)('batch:show', '--batch', body.batch)) as Body;
    expect(shown).toMatchObject({ id: body.batch, status: 'authorized', submissions: 1 });
    expect(shown.items.map((i: Body) => i.status)).toEqual(['authorized', 'authorized']);
    expect(status.body.typed_data).toBeUndefined();
  });

  it('answers 410 past the deadline; the follower fails every item expired on final chain evidence', async () => {
    const { body } = await create({ items: items(2) });
    await f.t.app
      .fork()
      .execute(`update payout_batches set deadline = deadline - 3600 where id = ?`, [body.batch]);
    await f.t.app
      .fork()
      .execute(`update payouts set deadline = deadline - 3600 where batch_id = ?`, [body.batch]);
    const token = await f.t.operatorToken();
    const { data } = await f.t.graphql(
      token,
      `query ($b: String!) { payoutBatchStatus(merchantId: "${f.merchant.id}", input: { batch: $b }) { typedData } }`,
      { b: body.batch },
    );
    const signature = await signOrder(f.payer, data.payoutBatchStatus.typedData);
    const late = await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    expect(late.status).toBe(410);
    // Refused, but not declared failed by this host's clock: the follower settles it on final evidence.
    const before = await f.call('/v1/payouts/batch/status', { batch: body.batch });
    expect(before.body.status).toBe('pending');
    await mine(f.provider, 70);
    await payoutFollower(f).tick();
    const status = await f.call('/v1/payouts/batch/status', { batch: body.batch });
    expect(status.body.status).toBe('failed');
    expect(status.body.items.map((i: Body) => i.failure_reason)).toEqual(['expired', 'expired']);
  });

  it('hides other merchants’ batches (404)', async () => {
    const { body } = await create({ items: items(1) });
    const other = await f.t.merchant('Other');
    expect((await f.t.signed(other, 'POST', '/v1/payouts/batch/status', { batch: body.batch })).status).toBe(
      404,
    );
    expect((await f.call('/v1/payouts/batch/status', { batch: 'pb_missing' })).status).toBe(404);
  });
});
