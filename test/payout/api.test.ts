import { getAddress, Signature, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedDataDigest } from '../../src/chains/payout-typed-data.ts';
import { createOrm } from '../../src/db/orm.ts';
import { entities } from '../../src/modules/index.ts';
import { authorizePayout } from '../../src/modules/payout/payout.authorize.ts';
import { Payout } from '../../src/modules/payout/payout.entity.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/** Sections 4.11-4.13 over REST: every error, idempotency, signatures. The relay is relay.test.ts's. */

let f: PayoutFixture;
let recipient: string;

beforeAll(async () => {
  f = await payoutFixture();
  recipient = Wallet.createRandom().address;
});
afterAll(() => f?.close());

const create = (body: Record<string, unknown>) =>
  f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount: '10', recipient, ...body });

describe('create (4.11)', () => {
  it('refuses a payout the router may not pull, with D4 details naming whom to approve', async () => {
    const { status, body } = await create({ amount: '12.5' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('insufficient_allowance');
    expect(body.error.details).toEqual({
      required: '12.5',
      available: '0',
      token: 'USDT',
      owner: getAddress(f.payer.address),
      spender: getAddress(f.contracts.payoutRouter),
    });
  });

  it('refuses more than the wallet holds once approved', async () => {
    await f.approve('USDT');
    const { status, body } = await create({ amount: '1000.000001' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('insufficient_funds');
    expect(body.error.details).toEqual({
      required: '1000.000001',
      available: '1000',
      token: 'USDT',
      owner: getAddress(f.payer.address),
    });
  });

  it('returns typed_data exactly per section 2.4 and D7, signable by the payout wallet', async () => {
    const { status, body } = await create({ amount: '125.50', external_id: 'po-shape' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'pending',
      network: 'eth',
      token: 'USDT',
      amount: '125.5',
      external_id: 'po-shape',
    });
    expect(body.payout).toMatch(/^po_/);
    expect(body.recipient).toBe(getAddress(recipient));
    expect(body.tx_hash).toBeUndefined();
    const td = body.typed_data;
    expect(td.primaryType).toBe('PayoutOrder');
    expect(td.types.EIP712Domain.map((x: Body) => x.name)).toEqual([
      'name',
      'version',
      'chainId',
      'verifyingContract',
    ]);
    expect(td.types.PayoutOrder).toEqual([
      { name: 'token', type: 'address' },
      { name: 'merchant', type: 'address' },
      { name: 'recipient', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
    ]);
    expect(td.domain).toEqual({
      name: 'PayoutRouter',
      version: '1',
      chainId: f.networks.networks[0]!.chainId,
      verifyingContract: getAddress(f.contracts.payoutRouter),
    });
    expect(td.message).toMatchObject({
      token: getAddress(f.contracts.tokens.USDT!.address),
      merchant: getAddress(f.payer.address),
      recipient: getAddress(recipient),
      amount: '125500000',
    });
    expect(typeof td.domain.chainId).toBe('number');
    expect(td.message.nonce).toMatch(/^[0-9]+$/);
    // The deadline counts from the later of the wall clock and the chain's (other tests move anvil's time).
    const head = await f.provider.getBlock('latest');
    const now = Math.max(Math.floor(Date.now() / 1000), head!.timestamp);
    expect(Number(td.message.deadline)).toBeGreaterThan(now + 29 * 60);
    expect(Number(td.message.deadline)).toBeLessThanOrEqual(now + 30 * 60 + 5);
    expect(body.deadline).toBe(Number(td.message.deadline));
    // The router's own digest of the order is what the wallet signs.
    const router = (await import('../../src/chains/contracts.ts')).contractAt(
      'PayoutRouter',
      f.contracts.payoutRouter,
      f.provider,
    );
    const onChain = await router.getFunction('hashOrder')([
      td.message.token,
      td.message.merchant,
      td.message.recipient,
      td.message.amount,
      td.message.nonce,
      td.message.deadline,
    ]);
    expect(onChain).toBe(typedDataDigest(td));
  });

  it('gives every payout its own router nonce', async () => {
    const bodies = await Promise.all(Array.from({ length: 8 }, () => create({ amount: '1' })));
    const nonces = bodies.map((r) => r.body.typed_data.message.nonce);
    expect(new Set(nonces).size).toBe(8);
  });

  it('is idempotent on external_id: same parameters → same payout and order; different → 409', async () => {
    const first = await create({ external_id: 'po-idem', amount: '3' });
    const again = await create({ external_id: 'po-idem', amount: '3.000' });
    expect(again.status).toBe(200);
    expect(again.body.payout).toBe(first.body.payout);
    expect(again.body.typed_data).toEqual(first.body.typed_data);
    const other = await create({ external_id: 'po-idem', amount: '4' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');
    const otherRecipient = await create({
      external_id: 'po-idem',
      amount: '3',
      recipient: Wallet.createRandom().address,
    });
    expect(otherRecipient.status).toBe(409);
  });

  it('lets exactly one of concurrent identical creates through', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => create({ external_id: 'po-race', amount: '2' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.payout)).size).toBe(1);
    expect(new Set(results.map((r) => r.body.typed_data.message.nonce)).size).toBe(1);
    const rows = await f.t.app
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from payouts where external_id = 'po-race'`);
    expect(rows[0]?.n).toBe(1);
  });

  it.each([
    [{ recipient: undefined }, 'validation', /recipient/],
    [{ amount: undefined }, 'validation', /amount/],
    [{ amount: '0' }, 'validation', /amount/],
    [{ amount: '-1' }, 'validation', /amount/],
    [{ amount: '1.1234567' }, 'validation', /fractional digits/],
    [{ amount: 12 }, 'validation', /amount/],
    [{ recipient: '0x1234' }, 'validation', /recipient/],
    [{ recipient: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }, 'validation', /recipient/],
    [{ recipient: '0xAbCdEf0000000000000000000000000000000000' }, 'validation', /checksum/],
    [{ external_id: 'has space' }, 'validation', /external_id/],
    [{ callback_url: 'ftp://x' }, 'validation', /callback_url/],
    [{ network: 'nope' }, 'unsupported', /network/],
    [{ token: 'XYZ' }, 'unsupported', /token/],
    [{ token: 'ETH' }, 'unsupported', /native coin/],
    [{ network: 'bare' }, 'unsupported', /payout router/],
  ])('refuses %j with %s', async (patch, code, message) => {
    const { status, body } = await create(patch);
    expect(status).toBe(400);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(message);
  });

  it('refuses a network where the merchant has no payout wallet', async () => {
    const other = await f.t.merchant('Walletless');
    const res = await f.t.signed(other, 'POST', '/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: '1',
      recipient,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body).error.code).toBe('unsupported');
  });

  it('needs a signed request', async () => {
    const res = await fetch(`${f.t.http.url}/v1/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });
});

describe('authorize (4.12) and status (4.13)', () => {
  it('refuses a malformed signature (400), another key (403), then takes the payout wallet’s', async () => {
    const { body: created } = await create({ amount: '5' });
    const payout = created.payout;
    for (const signature of ['0x12', `0x${'zz'.repeat(65)}`, `0x${'00'.repeat(65)}`]) {
      const bad = await f.call('/v1/payouts/authorize', { payout, signature });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('validation');
    }
    const missing = await f.call('/v1/payouts/authorize', { payout });
    expect(missing.status).toBe(400);
    const stranger = await signOrder(Wallet.createRandom(), created.typed_data);
    const wrong = await f.call('/v1/payouts/authorize', { payout, signature: stranger });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('forbidden');
    expect((await f.call('/v1/payouts/status', { payout })).body.status).toBe('pending');

    const signature = await signOrder(f.payer, created.typed_data);
    const ok = await f.call('/v1/payouts/authorize', { payout, signature });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ payout, status: 'authorized', amount: '5' });
    expect(ok.body.typed_data).toBeUndefined();
    // The relay is queued in the same transaction.
    const [relay] = await f.t.app
      .fork()
      .execute(`select kind, status, "to" from relay_requests where subject_id = ?`, [payout]);
    expect(relay).toMatchObject({
      kind: 'payout',
      status: 'queued',
      to: getAddress(f.contracts.payoutRouter),
    });

    // Again, with a valid signature: unchanged; with another key: still 403.
    const again = await f.call('/v1/payouts/authorize', { payout, signature });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('authorized');
    expect((await f.call('/v1/payouts/authorize', { payout, signature: stranger })).status).toBe(403);
    const [count] = await f.t.app
      .fork()
      .execute<{ n: number }[]>(`select count(*)::int as n from relay_requests where subject_id = ?`, [
        payout,
      ]);
    expect(count?.n).toBe(1);
  });

  it('authorizes in six statements, answering the row as written and with the relay’s job queued', async () => {
    const { body: created } = await create({ amount: '2' });
    const signature = await signOrder(f.payer, created.typed_data);
    // Every statement of the authorization, counted at an ORM of its own on the same database.
    const seen: string[] = [];
    const counting = await createOrm(f.t.config.databaseUrl!, {
      entities,
      // Not the ORM's own check of the database when it starts.
      onQuery: (m) => !m.includes('from pg_database') && seen.push(m),
    });
    let answer: Payout;
    try {
      answer = await authorizePayout(f.t.app.services.payouts, counting.em.fork(), f.merchant.id, {
        payout: created.payout,
        signature,
      });
    } finally {
      await counting.close();
    }
    // The read (payout and wallet), BEGIN, the transition, its notice, the relay request with its job, COMMIT.
    expect(seen).toHaveLength(6);
    const fresh = await f.t.app.fork().findOneOrFail(Payout, { id: created.payout });
    const fields = (p: Payout) => ({
      status: p.status,
      version: p.version,
      updatedAt: p.updatedAt.toISOString(),
      authorizedAt: p.authorizedAt?.toISOString(),
      signature: p.signature,
    });
    expect(fields(answer)).toEqual(fields(fresh));
    expect(answer.status).toBe('authorized');
    const jobs = await f.t.app
      .fork()
      .execute<{ task_identifier: string; payload: { id: number }; key: string }[]>(
        `select t.identifier as task_identifier, j.payload, j.key from graphile_worker._private_jobs j
           join graphile_worker._private_tasks t on t.id = j.task_id
           join relay_requests r on j.key = 'relay_request:' || r.id
          where r.subject_id = ?`,
        [created.payout],
      );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.task_identifier).toBe('relay_request');
    expect(jobs[0]!.key).toBe(`relay_request:${jobs[0]!.payload.id}`);
  });

  it('writes authorizations that arrive together in shared statements, each answered and relayed once', async () => {
    const n = 8;
    const orders = [];
    for (let i = 0; i < n; i++) {
      const { body: created } = await create({ amount: '1' });
      orders.push({
        payout: created.payout as string,
        signature: await signOrder(f.payer, created.typed_data),
      });
    }
    const seen: string[] = [];
    const counting = await createOrm(f.t.config.databaseUrl!, {
      entities,
      onQuery: (m) => !m.includes('from pg_database') && seen.push(m),
    });
    let answers: Payout[];
    try {
      // All at once, as concurrent API requests (the second of one payout among them).
      answers = await Promise.all(
        [...orders, orders[0]!].map((o) =>
          authorizePayout(f.t.app.services.payouts, counting.em.fork(), f.merchant.id, o),
        ),
      );
    } finally {
      await counting.close();
    }
    // One at a time they take six statements each.
    expect(seen.length).toBeLessThanOrEqual(3 * n);
    expect(answers.map((a) => a.status)).toEqual(Array(n + 1).fill('authorized'));
    for (const o of orders) {
      const fresh = await f.t.app.fork().findOneOrFail(Payout, { id: o.payout });
      expect(fresh.status).toBe('authorized');
      const [row] = await f.t.app.fork().execute<{ requests: number; covered: number }[]>(
        `select count(*)::int as requests,
                -- a job of its own, or of a request of its network asked for together with it (sooner):
                -- that job's send claims the network's whole queue (src/relay/evm-pipeline.ts)
                (select count(*)::int from graphile_worker._private_jobs j join relay_requests q on j.key = 'relay_request:' || q.id
                  where q.network = min(r.network) and q.status = 'queued' and q.id <= min(r.id)) as covered
           from relay_requests r where r.subject_id = ?`,
        [o.payout],
      );
      expect(row?.requests).toBe(1);
      expect(row?.covered).toBeGreaterThanOrEqual(1);
    }
    // Queued together, relayed by one send: a job per write, not one per request to add and drop.
    const [jobs] = await f.t.app.fork().execute<{ n: number }[]>(
      `select count(*)::int as n from graphile_worker._private_jobs j join relay_requests r on j.key = 'relay_request:' || r.id
        where r.subject_id = any(?::text[])`,
      [`{${orders.map((o) => o.payout).join(',')}}`],
    );
    expect(jobs?.n).toBeGreaterThanOrEqual(1);
    expect(jobs?.n).toBeLessThan(n);
  });

  it('normalises v 0/1 to 27/28 (D7)', async () => {
    const { body: created } = await create({ amount: '1' });
    const sig = Signature.from(await signOrder(f.payer, created.typed_data));
    const v01 = `${sig.r}${sig.s.slice(2)}${(sig.v - 27).toString(16).padStart(2, '0')}`;
    const ok = await f.call('/v1/payouts/authorize', { payout: created.payout, signature: v01 });
    expect(ok.status).toBe(200);
    const [row] = await f.t.app
      .fork()
      .execute<{ signature: string }[]>(`select signature from payouts where id = ?`, [created.payout]);
    expect(row!.signature.slice(-2)).toBe(sig.v.toString(16));
  });

  it('accepts exactly what the router’s ecrecover accepts from the payout wallet, with today’s codes', async () => {
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const hex32 = (x: bigint) => x.toString(16).padStart(64, '0');
    const { body: created } = await create({ amount: '1' });
    const td = created.typed_data;
    const sig = Signature.from(await signOrder(f.payer, td));
    const r = BigInt(sig.r);
    const s = BigInt(sig.s);
    const v = (x: number) => x.toString(16).padStart(2, '0');
    const with_ = (rr: bigint, ss: bigint, vv: number) => `0x${hex32(rr)}${hex32(ss)}${v(vv)}`;
    const call = (signature: string) =>
      f.call('/v1/payouts/authorize', { payout: created.payout, signature });
    // Malformed: v outside 0/1/27/28, r or s zero or not below the curve order, r not a point's x.
    for (const bad of [
      with_(r, s, 29),
      with_(r, s, 2),
      with_(0n, s, sig.v),
      with_(N, s, sig.v),
      with_(N + 1n, s, sig.v),
      with_(r, N, sig.v),
      with_(r, 0n, sig.v),
      with_(5n, s, sig.v), // x = 5 is on no point of secp256k1 (5³ + 7 = 132 is no square mod p)
    ]) {
      const res = await call(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('validation');
    }
    // Valid signatures of another key: the other v, another chain's or router's domain, a stranger.
    const flipped = with_(r, s, sig.v === 27 ? 28 : 27);
    const otherChain = await signOrder(f.payer, { ...td, domain: { ...td.domain, chainId: 1 } });
    const otherRouter = await signOrder(f.payer, {
      ...td,
      domain: { ...td.domain, verifyingContract: f.contracts.batchPayoutRouter },
    });
    const stranger = await signOrder(Wallet.createRandom(), td);
    for (const other of [flipped, otherChain, otherRouter, stranger]) {
      const res = await call(other);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await f.call('/v1/payouts/status', { payout: created.payout })).body.status).toBe('pending');
    // The malleated twin (N − s, the other v) recovers to the same wallet: accepted, stored low-s.
    const ok = await call(with_(r, N - s, sig.v === 27 ? 28 : 27));
    expect(ok.status).toBe(200);
    const [row] = await f.t.app
      .fork()
      .execute<{ signature: string }[]>(`select signature from payouts where id = ?`, [created.payout]);
    expect(row!.signature).toBe(sig.serialized.toLowerCase());
  });

  it('answers 410 past the deadline; the follower settles it failed/expired on final chain evidence', async () => {
    const { body: created } = await create({ amount: '1', external_id: 'po-late' });
    await f.t.app
      .fork()
      .execute(`update payouts set deadline = deadline - 3600 where id = ?`, [created.payout]);
    const token = await f.t.operatorToken();
    const { data } = await f.t.graphql(token, `query ($id: ID!) { payout(id: $id) { typedData } }`, {
      id: created.payout,
    });
    const signature = await signOrder(f.payer, data.payout.typedData);
    const late = await f.call('/v1/payouts/authorize', { payout: created.payout, signature });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('expired');
    const webhooks = () =>
      f.t.app.fork().execute(`select event, body from webhook_events where subject_id = ?`, [created.payout]);
    // Refused, but not declared failed by this host's clock: only the chain can say nothing moved.
    expect((await f.call('/v1/payouts/status', { payout: created.payout })).body.status).toBe('pending');
    expect(await webhooks()).toEqual([]);
    await mine(f.provider, 70);
    await payoutFollower(f).tick();
    const status = await f.call('/v1/payouts/status', { payout: created.payout });
    expect(status.body).toMatchObject({
      status: 'failed',
      failure_reason: 'expired',
      external_id: 'po-late',
    });
    expect((await webhooks()).map((e: Body) => e.event)).toEqual(['payout.failed']);
    // Asked again, it stays expired.
    expect((await f.call('/v1/payouts/authorize', { payout: created.payout, signature })).status).toBe(410);
  });

  it('hides another merchant’s payout and unknown ids (404)', async () => {
    const { body: created } = await create({ amount: '1' });
    const other = await f.t.merchant('Other');
    const res = await f.t.signed(other, 'POST', '/v1/payouts/status', { payout: created.payout });
    expect(res.status).toBe(404);
    expect((await f.call('/v1/payouts/status', { payout: 'po_missing' })).status).toBe(404);
    const sig = await signOrder(f.payer, created.typed_data);
    expect(
      (await f.t.signed(other, 'POST', '/v1/payouts/authorize', { payout: created.payout, signature: sig }))
        .status,
    ).toBe(404);
  });
});
