import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { fundPlayers } from '../../src/devstack/deploy.ts';
import { settlementCsvPage } from '../../src/modules/report/index.ts';
import { parseUnits } from '../../src/money.ts';
import {
  type Body,
  mine,
  type PayoutFixture,
  payoutFixture,
  payoutFollower,
  signOrder,
  until,
} from '../payout/support.ts';
import { ethWallet, type SessionFixture } from '../session/support.ts';
import { openSession, pay, settle } from './support.ts';

/**
 * The settlement report against the chain: known deposits and payouts settled on anvil, then every
 * total of the GraphQL report and of the CSV equals the settlement wallet's balance change, to the
 * base unit.
 */

let f: PayoutFixture;
let token: string;
const start: Record<string, bigint> = {};
const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const DECIMALS: Record<string, number> = {};

beforeAll(async () => {
  f = await payoutFixture({
    sessions: true,
    confirmations: [{ blocks: 2 }],
    pages: (app) => [settlementCsvPage(app)],
  });
  token = await f.t.operatorToken();
  for (const t of Object.values(f.contracts.tokens)) DECIMALS[t.symbol] = t.decimals;
  await f.approve('USDT');
  for (const symbol of ['USDC', 'USDT']) start[symbol] = await f.balance(symbol, f.payer.address);
  const player = await ethWallet(f.provider);
  await fundPlayers(f.deployer, f.contracts.tokens, [player.address], '1000');
  const sf = f as unknown as SessionFixture;
  // Two deposits through sessions: 12.345678 USDC and 7 USDT.
  for (const [symbol, amount] of [
    ['USDC', '12.345678'],
    ['USDT', '7'],
  ] as const) {
    const first = await openSession(sf, { token: symbol, amount, external_order_id: `report-${symbol}` });
    await pay(sf, first, player);
    await settle(sf, first.session);
  }
  // One payout paid (2.5 USDT), one failed (its deadline passed unrelayed).
  const follower = payoutFollower(f);
  const paid = await authorized('2.5');
  const stranger = await ethWallet(f.provider);
  const m = paid.typedData.message;
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  await (
    await router.getFunction('execute')(
      [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
      paid.signature,
    )
  ).wait();
  const failed = await authorized('1');
  const head = (await f.provider.getBlock('latest'))!;
  await f.provider.send('evm_increaseTime', [Number(failed.typedData.message.deadline) - head.timestamp + 1]);
  const done = await until(
    async () => {
      await mine(f.provider, 1);
      await follower.tick();
      return [await status(paid.id), await status(failed.id)];
    },
    ([a, b]) => a === 'completed' && b === 'failed',
  );
  expect(done).toEqual(['completed', 'failed']);
}, 180_000);
afterAll(() => f?.close());

async function authorized(amount: string) {
  const { body } = await f.call('/v1/payouts', {
    network: 'eth',
    token: 'USDT',
    amount,
    recipient: Wallet.createRandom().address,
  });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.payout as string, typedData: body.typed_data as Body, signature };
}
const status = async (id: string) =>
  (await f.call('/v1/payouts/status', { payout: id })).body.status as string;

const REPORT = `query($m: ID!, $from: String!, $to: String!) {
  settlementReport(merchantId: $m, from: $from, to: $to) {
    truncated
    rows { kind objectType objectId network token amountIn fee amountOut txHash block }
    totals { network token movements opening amountIn fee amountOut closing openingRaw amountInRaw feeRaw amountOutRaw closingRaw }
  }
}`;

async function chainDelta(symbol: string) {
  return (await f.balance(symbol, f.payer.address)) - start[symbol]!;
}

describe('the settlement report', () => {
  it('GraphQL: one row per movement and totals equal to the chain, to the base unit', async () => {
    const res = await f.t.graphql(token, REPORT, { m: f.merchant.id, from: day(), to: day() });
    expect(res.errors).toBeUndefined();
    const report = res.data.settlementReport;
    expect(report.truncated).toBe(false);
    expect(report.rows.map((r: Body) => `${r.kind} ${r.token} ${r.amountIn} ${r.amountOut}`).sort()).toEqual([
      'deposit USDC 12.345678 0',
      'deposit USDT 7 0',
      'payout USDT 0 2.5',
      'payout_failed USDT 0 0',
    ]);
    for (const r of report.rows) if (r.kind !== 'payout_failed') expect(r.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const bySymbol = Object.fromEntries(report.totals.map((t: Body) => [t.token, t]));
    expect(bySymbol.USDC).toMatchObject({
      network: 'eth',
      opening: '0',
      amountIn: '12.345678',
      fee: '0',
      amountOut: '0',
      closing: '12.345678',
    });
    expect(bySymbol.USDT).toMatchObject({
      opening: '0',
      amountIn: '7',
      amountOut: '2.5',
      closing: '4.5',
      movements: 3,
    });
    for (const symbol of ['USDC', 'USDT']) {
      const t = bySymbol[symbol];
      expect(BigInt(t.closingRaw) - BigInt(t.openingRaw)).toBe(await chainDelta(symbol));
      expect(BigInt(t.amountInRaw) - BigInt(t.amountOutRaw)).toBe(await chainDelta(symbol));
    }
  });

  it('a later period opens at this one’s closing; an earlier one has nothing', async () => {
    const later = await f.t.graphql(token, REPORT, { m: f.merchant.id, from: day(1), to: day(2) });
    const opening = Object.fromEntries(later.data.settlementReport.totals.map((t: Body) => [t.token, t]));
    expect(later.data.settlementReport.rows).toEqual([]);
    expect(opening.USDT).toMatchObject({ opening: '4.5', amountIn: '0', closing: '4.5', movements: 0 });
    expect(BigInt(opening.USDC.openingRaw)).toBe(await chainDelta('USDC'));
    const earlier = await f.t.graphql(token, REPORT, { m: f.merchant.id, from: day(-3), to: day(-1) });
    expect(earlier.data.settlementReport).toMatchObject({ rows: [], totals: [] });
  });

  it('CSV: streamed with the operator token; its columns sum per token to the chain’s figures', async () => {
    const url = `${f.t.http.url}/reports/settlement.csv?merchant=${f.merchant.id}&from=${day()}&to=${day()}`;
    expect((await fetch(url)).status).toBe(401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="settlement-mer_/);
    const [header, ...lines] = (await res.text()).trimEnd().split('\r\n');
    expect(header).toBe(
      'kind,object_type,object_id,occurred_at,network,token,opening,amount_in,fee,amount_out,tx_hash,block',
    );
    const sums: Record<string, { position: bigint; fee: bigint }> = {};
    for (const line of lines) {
      const [kind, , , , , symbol, opening, amountIn, fee, amountOut] = line.split(',');
      const d = DECIMALS[symbol!]!;
      sums[symbol!] ??= { position: 0n, fee: 0n };
      const s = sums[symbol!]!;
      s.position += parseUnits(opening!, d) + parseUnits(amountIn!, d) - parseUnits(amountOut!, d);
      s.fee += parseUnits(fee!, d);
      expect(['opening', 'deposit', 'credit', 'fee', 'payout', 'payout_failed']).toContain(kind);
    }
    expect(lines.filter((l) => l.startsWith('payout_failed,payout,po_'))).toHaveLength(1);
    for (const symbol of ['USDC', 'USDT']) {
      expect(sums[symbol]!.position).toBe(await chainDelta(symbol));
      expect(sums[symbol]!.fee).toBe(0n);
    }
  });

  it('refuses a malformed or reversed period and an unknown merchant, with clear errors', async () => {
    const bad = await f.t.graphql(token, REPORT, { m: f.merchant.id, from: '2026-13-01', to: day() });
    expect(bad.errors?.[0]).toMatchObject({
      message: 'from: a UTC day as YYYY-MM-DD',
      extensions: { code: 'validation' },
    });
    const reversed = await f.t.graphql(token, REPORT, { m: f.merchant.id, from: day(), to: day(-1) });
    expect(reversed.errors?.[0]?.extensions?.code).toBe('validation');
    const unknown = await f.t.graphql(token, REPORT, { m: 'mer_nope', from: day(), to: day() });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('not_found');
    const csv = await fetch(`${f.t.http.url}/reports/settlement.csv?merchant=${f.merchant.id}&from=x&to=y`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(csv.status).toBe(400);
    expect(await csv.json()).toMatchObject({ error: { code: 'validation' } });
  });
});

describe('the overview', () => {
  it('sums today’s and the week’s flows per network and token, counts failures, and charts daily volume', async () => {
    const res = await f.t.graphql(
      token,
      `{ overview {
          activity { network token window depositsCompleted depositsAmount payoutsPaid payoutsAmount payoutsFailed credits creditsAmount }
          attention { failedWebhooks failedPayouts24h stuckPayouts failedSweeps }
          volume { day network token amount }
      } }`,
    );
    expect(res.errors).toBeUndefined();
    const { activity, attention, volume } = res.data.overview;
    for (const window of ['today', '7d']) {
      expect(activity).toContainEqual({
        network: 'eth',
        token: 'USDT',
        window,
        depositsCompleted: 1,
        depositsAmount: '7',
        payoutsPaid: 1,
        payoutsAmount: '2.5',
        payoutsFailed: 1,
        credits: 0,
        creditsAmount: '0',
      });
    }
    expect(attention).toMatchObject({ failedPayouts24h: 1, stuckPayouts: 0 });
    expect(volume).toContainEqual({ day: day(), network: 'eth', token: 'USDC', amount: '12.345678' });
  });
});

describe('the console’s search and system reads', () => {
  it('finds sessions by transaction hash, player or order id and by day; payouts by recipient', async () => {
    const sessions = async (filter: Record<string, unknown>) =>
      (
        await f.t.graphql(
          token,
          'query($f: DepositSessionFilter) { sessions(filter: $f) { nodes { id externalOrderId txHash } } }',
          {
            f: filter,
          },
        )
      ).data.sessions.nodes as { id: string; externalOrderId: string; txHash: string }[];
    const [usdc] = await sessions({ search: 'report-USDC' });
    expect(usdc?.externalOrderId).toBe('report-USDC');
    expect(
      (await sessions({ search: usdc!.txHash.toUpperCase().replace('0X', '0x') })).map((s) => s.id),
    ).toEqual([usdc!.id]);
    expect((await sessions({ search: usdc!.id })).map((s) => s.id)).toEqual([usdc!.id]);
    expect(await sessions({ search: 'nothing-like-this' })).toEqual([]);
    const today = new Date(`${day()}T00:00:00Z`).toISOString();
    expect(await sessions({ createdBefore: today })).toEqual([]);
    expect((await sessions({ createdAfter: today })).length).toBe(2);

    const all = await f.t.graphql(token, '{ payouts { nodes { id recipient status } } }');
    const paid = (all.data.payouts.nodes as { id: string; recipient: string; status: string }[]).find(
      (p) => p.status === 'completed',
    )!;
    const found = await f.t.graphql(
      token,
      'query($s: String) { payouts(filter: { search: $s }) { nodes { id } } }',
      {
        s: paid.recipient,
      },
    );
    expect(found.data.payouts.nodes).toEqual([{ id: paid.id }]);
  });

  it('reads a batch by id alone, and the worker queue by task', async () => {
    const missing = await f.t.graphql(token, '{ payoutBatch(id: "pb_nope") { id } }');
    expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
    const jobs = await f.t.graphql(token, '{ workerJobs { task waiting running failing lastError } }');
    expect(jobs.errors).toBeUndefined();
    expect(Array.isArray(jobs.data.workerJobs)).toBe(true);
    const anonymous = await f.t.graphql('opk_not_a_token', '{ workerJobs { task } }');
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('unauthorized');
  });
});
