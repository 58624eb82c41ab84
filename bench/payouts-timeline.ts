/**
 * Where bench/payouts.ts spends its time: from the start of the authorizations, the moment each stage
 * first held any of the payouts and all of them (authorized, relay signed, broadcast, mined, completed),
 * and the blocks as the bench saw them arrive. Sampled every few tens of milliseconds from the
 * database and the node; printed under the figures, so a slow stage shows in the run that has it.
 */
import type { JsonRpcProvider } from 'ethers';

type Query = <T>(sql: string) => Promise<T[]>;

const STAGES = ['authorized', 'signed', 'broadcast', 'mined', 'completed'] as const;
type Stage = (typeof STAGES)[number];

export interface Timeline {
  stop(): Promise<void>;
  /** One line per stage (first, all) and one of blocks; times in ms from the start. */
  lines(): string[];
}

export function watchTimeline(
  query: Query,
  provider: JsonRpcProvider,
  count: number,
  start: number,
  everyMs = 25,
): Timeline {
  const first = new Map<Stage, number>();
  const all = new Map<Stage, number>();
  const blocks: { number: number; at: number; counts: number[] }[] = [];
  let running = true;
  const sample = async () => {
    try {
      const [[row], head] = await Promise.all([
        query<Record<Stage, number>>(
          `select (select count(*)::int from payouts where status in ('authorized', 'submitted', 'completed')) as authorized,
                  (select count(*)::int from relay_transactions) as signed,
                  (select count(*)::int from relay_transactions where status in ('sent', 'mined')) as broadcast,
                  (select count(*)::int from relay_transactions where status = 'mined') as mined,
                  (select count(*)::int from payouts where status = 'completed') as completed`,
        ),
        provider.getBlockNumber(),
      ]);
      const at = performance.now() - start;
      for (const stage of STAGES) {
        const n = row?.[stage] ?? 0;
        if (n > 0 && !first.has(stage)) first.set(stage, at);
        if (n >= count && !all.has(stage)) all.set(stage, at);
      }
      const counts = STAGES.map((s) => row?.[s] ?? 0);
      if (blocks.at(-1)?.number !== head) blocks.push({ number: head, at, counts });
      else blocks.at(-1)!.counts = counts;
    } catch {
      // The bench's own checks report a broken database or node; the timeline only samples.
    }
  };
  const loop = (async () => {
    while (running) {
      await sample();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const ms = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(0)}`);
  return {
    async stop() {
      running = false;
      await loop;
      await sample();
    },
    lines: () => [
      `  timeline (ms from the first authorization: first / all ${count}):`,
      `    ${STAGES.map((s) => `${s} ${ms(first.get(s))}/${ms(all.get(s))}`).join(', ')}`,
      `    blocks seen (number @ ms: ${STAGES.join('/')} by the next block):`,
      ...blocks.map((b) => `      ${b.number} @ ${b.at.toFixed(0)}: ${b.counts.join('/')}`),
    ],
  };
}
