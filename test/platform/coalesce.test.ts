import { expect, it } from 'vitest';
import { Coalescer } from '../../src/db/coalesce.ts';

/** A batch function whose batches the test answers by hand, in any order. */
function manual() {
  const batches: { requests: number[]; answer(results?: number[]): void; fail(error: Error): void }[] = [];
  const run = (requests: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push({
        requests: [...requests],
        answer: (results) => resolve(results ?? requests.map((r) => r * 10)),
        fail: reject,
      });
    });
  return { batches, run };
}

it('sends an idle request at once, alone', async () => {
  const { batches, run } = manual();
  const c = new Coalescer(run);
  const one = c.load(1);
  expect(batches.map((b) => b.requests)).toEqual([[1]]);
  batches[0]!.answer();
  await expect(one).resolves.toBe(10);
});

it('queues requests while the batches in flight are full and sends them together, each answered', async () => {
  const { batches, run } = manual();
  const c = new Coalescer(run, { maxInFlight: 2, maxBatch: 3 });
  const results = [1, 2, 3, 4, 5, 6, 7].map((r) => c.load(r));
  // Two go at once; the rest wait for room.
  expect(batches.map((b) => b.requests)).toEqual([[1], [2]]);
  batches[1]!.answer();
  await new Promise((r) => setImmediate(r));
  // The next batch takes at most maxBatch of the queue, in arrival order.
  expect(batches.map((b) => b.requests)).toEqual([[1], [2], [3, 4, 5]]);
  batches[0]!.answer();
  batches[2]!.answer();
  await new Promise((r) => setImmediate(r));
  expect(batches.map((b) => b.requests)).toEqual([[1], [2], [3, 4, 5], [6, 7]]);
  batches[3]!.answer();
  await expect(Promise.all(results)).resolves.toEqual([10, 20, 30, 40, 50, 60, 70]);
});

it('a failed batch fails each of its requests and no other; the next batches still go', async () => {
  const { batches, run } = manual();
  const c = new Coalescer(run, { maxInFlight: 1 });
  const first = c.load(1);
  const queued = [c.load(2), c.load(3)];
  batches[0]!.fail(new Error('database down'));
  await expect(first).rejects.toThrow('database down');
  await new Promise((r) => setImmediate(r));
  expect(batches.map((b) => b.requests)).toEqual([[1], [2, 3]]);
  batches[1]!.answer();
  await expect(Promise.all(queued)).resolves.toEqual([20, 30]);
});

it('a batch answered with the wrong number of results fails its requests, never answers them wrongly', async () => {
  const { batches, run } = manual();
  const c = new Coalescer(run, { maxInFlight: 1 });
  const first = c.load(1);
  const rest = [c.load(2), c.load(3)].map((p) => p.catch((e: Error) => e.message));
  batches[0]!.answer();
  await first;
  await new Promise((r) => setImmediate(r));
  batches[1]!.answer([20]);
  expect(await Promise.all(rest)).toEqual([
    'a batch of 2 was answered with 1 results',
    'a batch of 2 was answered with 1 results',
  ]);
});
