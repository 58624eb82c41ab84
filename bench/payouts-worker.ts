/**
 * A worker process of bench/payouts.ts, started before the bench's chain and database exist: it loads
 * the service's modules first (seconds of compiling, overlapped with the bench's set-up), then reads one
 * line on stdin — the environment `npm run worker` is given — and runs src/worker-main.ts itself, the
 * same program as `npm run worker`.
 */
import { createInterface } from 'node:readline';

await import('../src/app.ts');
await import('../src/worker/runner.ts');
process.stderr.write('modules loaded\n');
const line = await new Promise<string>((resolve) =>
  createInterface({ input: process.stdin }).once('line', resolve),
);
Object.assign(process.env, JSON.parse(line) as Record<string, string>);
await import('../src/worker-main.ts');
