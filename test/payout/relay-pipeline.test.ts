import { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { broadcastInOrder, sendEvm } from '../../src/relay/evm-pipeline.ts';
import { watchEvm } from '../../src/relay/evm-watch.ts';
import type { Relayer } from '../../src/relay/relayer.ts';
import { SenderSession } from '../../src/relay/sender-session.ts';
import { type PayoutFixture, payoutFixture, payoutFollower, signOrder, until } from './support.ts';

/**
 * Pipelined sends (src/relay/evm-pipeline.ts): one `relay_request` job takes the wallet's whole queue,
 * gives it consecutive nonces in one transaction and broadcasts it in nonce order. A crash between
 * signing and broadcasting, or between broadcasting and recording, is recovered by the watcher with the
 * same stored bytes; a nonce the node lost in the middle of the run (a gap that holds every later one
 * back) is sent again. Each payout is paid exactly once. No worker runs: the test drives the job, the
 * watcher and the follower itself.
 */

let f: PayoutFixture;
let follower: ReturnType<typeof payoutFollower>;

beforeAll(async () => {
  f = await payoutFixture({ confirmations: [{ blocks: 1 }] });
  await f.approve('USDT');
  follower = payoutFollower(f);
});
afterAll(async () => {
  await f?.provider.send('evm_setAutomine', [true]);
  await f?.close();
});

async function authorize(count: number) {
  const orders: { id: string; recipient: string; raw: bigint; relay: number }[] = [];
  for (let i = 0; i < count; i++) {
    const recipient = Wallet.createRandom().address;
    const { body } = await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: `1.${i}`,
      recipient,
    });
    const signature = await signOrder(f.payer, body.typed_data);
    expect((await f.call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
      'authorized',
    );
    const [relay] = await f.t.app
      .fork()
      .execute<{ id: string }[]>('select id from relay_requests where subject_id = ?', [body.payout]);
    orders.push({
      id: body.payout,
      recipient,
      raw: BigInt(body.typed_data.message.amount),
      relay: Number(relay!.id),
    });
  }
  return orders;
}

const relays = (orders: { relay: number }[]) =>
  f.t.app.fork().execute<{ id: string; nonce: string | null; status: string; tx: string | null }[]>(
    `select r.id, r.nonce, r.status,
            (select string_agg(t.status, ',' order by t.id) from relay_transactions t where t.request_id = r.id) as tx
       from relay_requests r where r.id in (?) order by r.id`,
    [orders.map((o) => o.relay)],
  );

const commit = <T>(work: (tx: EntityManager) => Promise<T>) => f.t.app.fork().transactional(work);
const leader = () => f.t.app.services.relayer.fencedBy(commit);

/**
 * The relayer whose process dies around its broadcast: `before` (nothing reaches the node) or `after`
 * (the node has them all, nothing is recorded). A death is a throw out of the job at that point.
 */
function crashing(when: 'before' | 'after'): Relayer {
  const relayer = f.t.app.services.relayer;
  const clients = relayer.deps.clients;
  const evm = (network: Parameters<typeof clients.evm>[0]) => {
    const client = clients.evm(network);
    const batch: typeof client.transport.batch = async (calls, options) => {
      const broadcast = calls.some((c) => c.method === 'eth_sendRawTransaction');
      if (broadcast && when === 'before') throw new Error('crash before broadcasting');
      const answers = await client.transport.batch(calls, options);
      if (broadcast) throw new Error('crash after broadcasting');
      return answers;
    };
    return { ...client, transport: { ...client.transport, batch } };
  };
  const deps = { ...relayer.deps, clients: Object.assign(Object.create(clients), { evm }) };
  return Object.create(relayer, { deps: { value: deps, enumerable: true } }) as Relayer;
}

/** Watcher and follower until every order is completed; then each was paid exactly once. */
async function settlesPaidOnce(orders: Awaited<ReturnType<typeof authorize>>) {
  const network = f.t.app.services.relayer.network('eth');
  const rows = await until(
    async () => {
      await watchEvm(leader(), network);
      await f.provider.send('anvil_mine', ['0x1']);
      await follower.tick();
      return f.t.app
        .fork()
        .execute<{ status: string }[]>('select status from payouts where id in (?)', [
          orders.map((o) => o.id),
        ]);
    },
    (r) => r.every((x) => x.status === 'completed'),
    30_000,
  );
  expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'completed'));
  for (const o of orders) expect(await f.balance('USDT', o.recipient)).toBe(o.raw);
  const mined = await until(
    async () => {
      await watchEvm(leader(), network);
      return f.t.app.fork().execute<{ subject_id: string; n: number }[]>(
        `select r.subject_id, count(*)::int as n from relay_transactions t join relay_requests r on r.id = t.request_id
          where t.status = 'mined' and r.subject_id in (?) group by r.subject_id`,
        [orders.map((o) => o.id)],
      );
    },
    (m) => m.length === orders.length,
  );
  expect(mined.map((m) => m.n)).toEqual(orders.map(() => 1));
}

it('one job sends the wallet’s whole queue: consecutive nonces in request order, all broadcast, the others’ jobs dropped', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(6);
  const network = f.t.app.services.relayer.network('eth');
  await sendEvm(f.t.app.services.relayer, network, orders[0]!.relay);
  const rows = await relays(orders);
  expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'submitted'));
  expect(rows.map((r) => r.tx)).toEqual(orders.map(() => 'sent'));
  const nonces = rows.map((r) => Number(r.nonce));
  expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
  const [jobs] = await f.t.app
    .fork()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from graphile_worker.jobs where key = any(?::text[])`,
      [
        `{${orders
          .slice(1)
          .map((o) => `relay_request:${o.relay}`)
          .join(',')}}`,
      ],
    );
  expect(jobs?.n).toBe(0);
  // All in the node's pool at once, mined in one block.
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a crash between signing and broadcasting: the watcher broadcasts the stored bytes in nonce order, each paid once', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(4);
  const network = f.t.app.services.relayer.network('eth');
  await expect(sendEvm(crashing('before'), network, orders[0]!.relay)).rejects.toThrow(
    'crash before broadcasting',
  );
  const rows = await relays(orders);
  expect(rows.map((r) => r.tx)).toEqual(orders.map(() => 'signed'));
  expect(Number(await f.provider.send('eth_getBlockTransactionCountByNumber', ['pending']))).toBe(0);
  // A job of another request of the run finds its request signed and leaves it to the watcher.
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a crash between broadcasting and recording: nothing is signed again, each paid once', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(4);
  const network = f.t.app.services.relayer.network('eth');
  await expect(sendEvm(crashing('after'), network, orders[0]!.relay)).rejects.toThrow(
    'crash after broadcasting',
  );
  expect((await relays(orders)).map((r) => r.tx)).toEqual(orders.map(() => 'signed'));
  // The node has them all: the next block carries the whole run.
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  const [count] = await f.t.app.fork().execute<{ n: number }[]>(
    `select count(*)::int as n from relay_transactions t join relay_requests r on r.id = t.request_id
      where r.subject_id in (?)`,
    [orders.map((o) => o.id)],
  );
  expect(count?.n).toBe(orders.length);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a nonce the node lost in the middle of a run holds the later ones back until the watcher sends it again', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(5);
  const network = f.t.app.services.relayer.network('eth');
  await sendEvm(f.t.app.services.relayer, network, orders[0]!.relay);
  const [lost] = await f.t.app
    .fork()
    .execute<{ hash: string }[]>('select hash from relay_transactions where request_id = ?', [
      orders[2]!.relay,
    ]);
  await f.provider.send('anvil_dropTransaction', [lost!.hash]);
  await f.provider.send('anvil_mine', ['0x1']);
  // The two before the gap are mined; the two after it wait behind it.
  for (const o of orders.slice(0, 2)) expect(await f.balance('USDT', o.recipient)).toBe(o.raw);
  for (const o of orders.slice(2)) expect(await f.balance('USDT', o.recipient)).toBe(0n);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a sender that dies holding its claim: its requests are taken over at once, not when the claim’s lease runs out', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(4);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  // Another process: its own session, and a node that never answers its simulations (it hangs there).
  const session = new SenderSession({ databaseUrl: f.t.app.config.databaseUrl, logger: relayer.deps.logger });
  const clients = relayer.deps.clients;
  const evm = (n: Parameters<typeof clients.evm>[0]) => {
    const client = clients.evm(n);
    const batch: typeof client.transport.batch = (calls, options) =>
      calls.some((c) => c.method === 'eth_estimateGas')
        ? new Promise(() => {})
        : client.transport.batch(calls, options);
    return { ...client, transport: { ...client.transport, batch } };
  };
  const dying = Object.create(relayer, {
    deps: { value: { ...relayer.deps, clients: Object.assign(Object.create(clients), { evm }) } },
    session: { value: session },
  }) as Relayer;
  void sendEvm(dying, network, orders[0]!.relay);
  await until(
    () =>
      f.t.app
        .fork()
        .execute<{ n: number }[]>(
          'select count(*)::int as n from relay_requests where id in (?) and claimed_by is not null',
          [orders.map((o) => o.relay)],
        ),
    (rows) => rows[0]?.n === orders.length,
  );
  // The process dies: its connections end with it.
  await session.close();
  await watchEvm(leader(), network);
  await sendEvm(relayer, network, orders[1]!.relay);
  expect((await relays(orders)).map((r) => r.status)).toEqual(orders.map(() => 'submitted'));
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a job whose own request another sender holds sends the rest of the queue it claimed, leaving none claimed and unsent', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  // The first is in another live sender's pass (this process's token stands for it).
  const token = await relayer.session.token();
  await f.t.app
    .fork()
    .execute(
      `update relay_requests set claimed_until = now() + interval '1 hour', claimed_by = ? where id = ?`,
      [token, orders[0]!.relay],
    );
  await sendEvm(relayer, network, orders[0]!.relay);
  const rows = await relays(orders);
  expect(rows.map((r) => r.status)).toEqual(['queued', 'submitted', 'submitted']);
  await f.t.app
    .fork()
    .execute('update relay_requests set claimed_until = null, claimed_by = null where id = ?', [
      orders[0]!.relay,
    ]);
  await sendEvm(relayer, network, orders[0]!.relay);
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a send that fails before signing queues again the requests it claimed from others, whose jobs had run', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  const keys = orders.slice(1).map((o) => `relay_request:${o.relay}`);
  // Their jobs ran while the first one's send had them claimed: nothing of theirs is queued any more.
  await f.t.app
    .fork()
    .execute('select graphile_worker.remove_job(k) from unnest(?::text[]) k', [`{${keys.join(',')}}`]);
  const clients = relayer.deps.clients;
  const evm = (n: Parameters<typeof clients.evm>[0]) => {
    const client = clients.evm(n);
    const batch: typeof client.transport.batch = async (calls, options) => {
      if (calls.some((c) => c.method === 'eth_estimateGas')) throw new Error('node down while simulating');
      return client.transport.batch(calls, options);
    };
    return { ...client, transport: { ...client.transport, batch } };
  };
  const failing = Object.create(relayer, {
    deps: { value: { ...relayer.deps, clients: Object.assign(Object.create(clients), { evm }) } },
  }) as Relayer;
  await expect(sendEvm(failing, network, orders[0]!.relay)).rejects.toThrow('node down while simulating');
  const jobs = await f.t.app
    .fork()
    .execute<{ key: string }[]>(
      'select key from graphile_worker.jobs where key = any(?::text[]) order by key',
      [`{${keys.join(',')}}`],
    );
  expect(jobs.map((j) => j.key)).toEqual([...keys].sort());
  const rows = await relays(orders);
  expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'queued'));
  await sendEvm(relayer, network, orders[0]!.relay);
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

/**
 * Another process, whose node never answers its broadcasts: it signs and stores the transactions of
 * `orders` and hangs there, still claiming them. `kill()` ends its connections, as a SIGKILL does.
 */
async function hangingSender(
  orders: Awaited<ReturnType<typeof authorize>>,
): Promise<{ kill(): Promise<void> }> {
  const relayer = f.t.app.services.relayer;
  const session = new SenderSession({ databaseUrl: f.t.app.config.databaseUrl, logger: relayer.deps.logger });
  const hanging = throughNode(relayer, (calls, send) =>
    calls.some((c) => c.method === 'eth_sendRawTransaction') ? new Promise(() => {}) : send(),
  );
  const dying = Object.create(hanging, { session: { value: session } }) as Relayer;
  void sendEvm(dying, relayer.network('eth'), orders[0]!.relay);
  await until(
    () => relays(orders),
    (rows) => rows.every((r) => r.tx === 'signed'),
  );
  return { kill: () => session.close() };
}

/** `relayer` (same process: same sender session) with its node's calls passed through `wrap`. */
function throughNode(
  relayer: Relayer,
  wrap: (calls: { method: string; params: unknown[] }[], send: () => Promise<unknown>) => Promise<unknown>,
): Relayer {
  const clients = relayer.deps.clients;
  const evm = (n: Parameters<typeof clients.evm>[0]) => {
    const client = clients.evm(n);
    const batch: typeof client.transport.batch = (calls, options) =>
      wrap(calls as { method: string; params: unknown[] }[], () =>
        client.transport.batch(calls, options),
      ) as ReturnType<typeof client.transport.batch>;
    const request = (<T>(method: string, params?: unknown[], options?: never) =>
      wrap([{ method, params: params ?? [] }], () =>
        client.transport.request<T>(method, params, options),
      ) as Promise<T>) as typeof client.transport.request;
    return { ...client, transport: { ...client.transport, batch, request } };
  };
  return Object.create(relayer, {
    deps: { value: { ...relayer.deps, clients: Object.assign(Object.create(clients), { evm }) } },
  }) as Relayer;
}

it('a send asks the node everything it needs before signing at once: one wait, not one per question', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  // Waves: how often the node went from no call in flight to one, before the first broadcast.
  let inFlight = 0;
  let waves = 0;
  let broadcasting = false;
  const counting = throughNode(relayer, async (calls, send) => {
    if (calls.some((c) => c.method === 'eth_sendRawTransaction')) broadcasting = true;
    if (inFlight++ === 0 && !broadcasting) waves++;
    try {
      return await send();
    } finally {
      inFlight--;
    }
  });
  await sendEvm(counting, network, orders[0]!.relay);
  expect((await relays(orders)).map((r) => r.status)).toEqual(orders.map(() => 'submitted'));
  // The router's `nonceUsed`, the simulations, the fees, the balance and the pending count: together.
  expect(waves).toBe(1);
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('jobs of one process wait for the send of the wallet on its way, then send what arrived meanwhile: nonces in request order, none signed twice', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const [first] = await authorize(1);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  // The first send is held in its simulation until the second job has finished, or for a while.
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = true;
  const slow = throughNode(relayer, async (calls, send) => {
    if (holding && calls.some((c) => c.method === 'eth_estimateGas')) {
      holding = false;
      await held;
    }
    return send();
  });
  const firstSend = sendEvm(slow, network, first!.relay);
  await until(
    () => relays([first!]),
    (rows) => rows[0]?.status === 'queued',
  );
  const later = await authorize(3);
  const secondSend = sendEvm(relayer, network, later[0]!.relay);
  // Whichever comes first: the second send done (it did not wait), or two seconds of it waiting.
  await Promise.race([secondSend, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  release();
  await Promise.all([firstSend, secondSend]);
  const orders = [first!, ...later];
  const rows = await relays(orders);
  expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'submitted'));
  const nonces = rows.map((r) => Number(r.nonce));
  expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
  const [signed] = await f.t.app
    .fork()
    .execute<{ n: number }[]>('select count(*)::int as n from relay_transactions where request_id in (?)', [
      orders.map((o) => o.relay),
    ]);
  expect(signed?.n).toBe(orders.length);
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('an orphan whose own transaction is mined while the watcher looks at it is not taken for done elsewhere: no nonce filled', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(2);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  // The node has them; their sender never recorded the broadcast (as one too slow to, or dead).
  await expect(sendEvm(crashing('after'), network, orders[0]!.relay)).rejects.toThrow(
    'crash after broadcasting',
  );
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  // A block arrives just after the watcher read the wallet's count: the receipts it read say nothing
  // is mined, the router's state read next says both orders are executed.
  let mined = false;
  const racing = throughNode(relayer, async (calls, send) => {
    const answer = await send();
    if (!mined && calls.some((c) => c.method === 'eth_getTransactionCount')) {
      mined = true;
      await f.provider.send('anvil_mine', ['0x1']);
    }
    return answer;
  });
  await watchEvm(racing.fencedBy(commit), network);
  expect(mined).toBe(true);
  const [fillers] = await f.t.app
    .fork()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from relay_transactions where request_id in (?) and kind = 'filler'`,
      [orders.map((o) => o.relay)],
    );
  expect(fillers?.n).toBe(0);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a sender killed between storing and broadcasting: the next watcher tick broadcasts its stored bytes, without waiting for them to age', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  const sender = await hangingSender(orders);
  // The process is killed: its connections end with it.
  await sender.kill();
  await watchEvm(leader(), network);
  expect((await relays(orders)).map((r) => r.tx)).toEqual(orders.map(() => 'sent'));
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a sender killed between storing and broadcasting: the next send of another process broadcasts its stored bytes first, with no watcher tick (no takeover)', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  const sender = await hangingSender(orders);
  // The process is killed: its connections end with it. More payouts arrive; this process sends them.
  await sender.kill();
  const more = await authorize(2);
  await sendEvm(relayer, network, more[0]!.relay);
  // Nobody watched: the sender itself sent the dead one's stored bytes, so one block takes all five.
  expect((await relays([...orders, ...more])).map((r) => r.tx)).toEqual(
    [...orders, ...more].map(() => 'sent'),
  );
  await f.provider.send('anvil_mine', ['0x1']);
  for (const o of [...orders, ...more]) expect(await f.balance('USDT', o.recipient)).toBe(o.raw);
  await settlesPaidOnce([...orders, ...more]);
  await f.provider.send('evm_setAutomine', [true]);
});

it('a sender still alive below another’s send, then killed before broadcasting: the other process sends its stored bytes soon after, with no watcher tick', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  const sender = await hangingSender(orders);
  // Its sender is alive: this process sends its own above them (and leaves them alone, unless they
  // have waited long enough to count as stuck: a loaded machine may take that long to get here).
  const more = await authorize(2);
  await sendEvm(relayer, network, more[0]!.relay);
  const all = [...orders, ...more];
  expect((await relays(more)).map((r) => r.tx)).toEqual(['sent', 'sent']);
  // Then it is killed: nobody watches, yet its stored bytes go out.
  await sender.kill();
  await until(
    () => relays(all),
    (rows) => rows.every((r) => r.tx === 'sent'),
  );
  await f.provider.send('anvil_mine', ['0x1']);
  for (const o of all) expect(await f.balance('USDT', o.recipient)).toBe(o.raw);
  await settlesPaidOnce(all);
  await f.provider.send('evm_setAutomine', [true]);
});

it('bytes the node already has, broadcast again in a batch, are taken as sent: none is sent again on its own', async () => {
  await f.provider.send('evm_setAutomine', [false]);
  const orders = await authorize(3);
  const relayer = f.t.app.services.relayer;
  const network = relayer.network('eth');
  await sendEvm(relayer, network, orders[0]!.relay);
  const stored = await f.t.app
    .fork()
    .execute<{ id: string; request_id: string; wallet: string; nonce: string; hash: string; raw: string }[]>(
      'select id, request_id, wallet, nonce, hash, raw from relay_transactions where request_id in (?) order by nonce',
      [orders.map((o) => o.relay)],
    );
  // The same bytes again (as a second sender, or the watcher, sends them): one batch, nothing one by one.
  let single = 0;
  const clients = relayer.deps.clients;
  const evm = (n: Parameters<typeof clients.evm>[0]) => {
    const client = clients.evm(n);
    const broadcast: typeof client.broadcast = (raw) => {
      single++;
      return client.broadcast(raw);
    };
    return { ...client, broadcast };
  };
  const counting = Object.create(relayer, {
    deps: { value: { ...relayer.deps, clients: Object.assign(Object.create(clients), { evm }) } },
  }) as Relayer;
  const txs = stored.map((t) => ({
    id: Number(t.id),
    request: { id: Number(t.request_id) },
    wallet: t.wallet,
    nonce: Number(t.nonce),
    hash: t.hash,
    raw: t.raw,
  }));
  const took = await broadcastInOrder(counting, network, counting.deps.clients.evm(network), txs);
  expect(took.map((t) => t.id)).toEqual(txs.map((t) => t.id));
  expect(single).toBe(0);
  await f.provider.send('anvil_mine', ['0x1']);
  await settlesPaidOnce(orders);
  await f.provider.send('evm_setAutomine', [true]);
});
