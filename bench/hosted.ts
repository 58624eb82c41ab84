import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { networkFileSchema } from '../src/chains/networks.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { createOrm } from '../src/db/orm.ts';
import { consoleAssets } from '../src/http/console-assets.ts';
import { webPages } from '../src/http/pages.ts';
import { startHttpServer } from '../src/http/server.ts';
import { webAssets } from '../src/http/web-assets.ts';
import { entities } from '../src/modules/index.ts';
import { Session } from '../src/modules/session/session.entity.ts';
import { entitySnapshot } from '../src/modules/session/session.service.ts';
import { transitionSessions } from '../src/modules/session/session.transition.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { benchApp, percentile } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const POLL_MS = 500;
/** Pause between two settlements, so each latency is measured on its own. */
const SPACING_MS = 30;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: { sessions: { type: 'string' }, loads: { type: 'string' } },
  });
  const sessions = Number(values.sessions ?? 100);
  const loads = Number(values.loads ?? 10);
  const kb = (n: number) => `${(n / 1024).toFixed(1).padStart(6)} kB`;
  const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`;

  // The database and the browser (processes of their own) start while the assets are built here.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-hosted-'));
  const starting = startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const launching = existsSync(CHROMIUM)
    ? chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      })
    : undefined;
  // Awaited below; a failure before then is reported there, not as an unhandled rejection.
  starting.catch(() => {});
  launching?.catch(() => {});
  const built = await webAssets();
  const figures = [
    figure('page JavaScript (gzip)', built.assets.get('page.js')!.gzip.length / 1024, 'kB', {
      target: { of: 'value', op: '≤', bound: 50 },
    }),
    figure('page CSS (gzip)', built.assets.get('page.css')!.gzip.length / 1024, 'kB', {
      target: { of: 'value', op: '≤', bound: 10 },
    }),
    figure('SDK (gzip)', built.sdk.gzip.length / 1024, 'kB', { target: { of: 'value', op: '≤', bound: 5 } }),
  ];
  console.log('hosted page weight (gzip, as served)');
  console.log(`  page JavaScript ${kb(built.assets.get('page.js')!.gzip.length)}   (budget  50 kB)`);
  console.log(`  page CSS        ${kb(built.assets.get('page.css')!.gzip.length)}   (budget  10 kB)`);
  console.log(`  SDK             ${kb(built.sdk.gzip.length)}   (budget   5 kB)`);
  // The operator console beside it: Preact, urql, graphql-ws, gql.tada's runtime and uPlot, bundled.
  const operator = await consoleAssets();
  console.log('operator console weight (gzip, as served)');
  console.log(`  console JavaScript ${kb(operator.assets.get('console.js')!.gzip.length)}`);
  console.log(`  console CSS        ${kb(operator.assets.get('console.css')!.gzip.length)}`);

  const db = await starting;
  const url = await db.createDatabase('bench');
  const networks = networkFileSchema.parse({
    networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
  });
  const { app, merchant } = await benchApp(url, networks, { PORT: '0', HOST: '127.0.0.1' });
  const http = await startHttpServer(app, { pages: webPages(app) });
  const link = () => app.services.hosted.create(app.fork(), merchant.id, {});
  const worker = await createOrm(url, { entities });

  try {
    // (1) First rendered step: navigation to the step's heading on screen, a fresh context each time.
    if (launching) {
      const browser = await launching;
      const firstStep: number[] = [];
      const wallClock: number[] = [];
      for (let i = 0; i <= loads; i++) {
        const { url: pageUrl } = await link();
        const context = await browser.newContext();
        const page = await context.newPage();
        const t0 = performance.now();
        await page.goto(pageUrl);
        await page.locator('#step-heading').waitFor();
        const wall = performance.now() - t0;
        // Navigation start to the first step on screen, as the page itself marks it.
        const mark = await page.evaluate(
          () => performance.getEntriesByName('cashier:first-step')[0]?.startTime ?? Number.NaN,
        );
        // The first load warms the server's build and the browser; it is not counted.
        if (i > 0) {
          firstStep.push(mark);
          wallClock.push(wall);
        }
        await context.close();
      }
      await browser.close();
      firstStep.sort((a, b) => a - b);
      wallClock.sort((a, b) => a - b);
      console.log(
        `time to first rendered step (${loads} loads, navigation start → step on screen, in the page):   p50 ${ms(percentile(firstStep, 0.5))}   p95 ${ms(percentile(firstStep, 0.95))}   (target < 1000 ms)`,
      );
      figures.push(
        figure('first rendered step p95', percentile(firstStep, 0.95), 'ms', {
          target: { of: 'value', op: '<', bound: 1000 },
        }),
      );
      console.log(
        `  the same seen from the driver (goto → heading found, with playwright's own round trips): p50 ${ms(percentile(wallClock, 0.5))}   p95 ${ms(percentile(wallClock, 0.95))}`,
      );
    } else {
      console.log(`time to first rendered step: skipped (no ${CHROMIUM})`);
    }

    // (2) Push vs polling, the same sessions, the same settlements.
    const links = await Promise.all(Array.from({ length: sessions }, link));
    const settledAt = new Map<string, number>();
    const pushedAt = new Map<string, number>();
    const polledAt = new Map<string, number>();
    const wsUrl = `${http.url.replace('http', 'ws')}/graphql`;
    const clients = links.map(() => createClient({ url: wsUrl, webSocketImpl: WebSocket, lazy: false }));
    let subscribed = 0;
    links.forEach((l, i) => {
      clients[i]!.subscribe<{ hostedStepChanged: { step: string } }>(
        {
          query: 'subscription ($t: String!) { hostedStepChanged(token: $t) { step status } }',
          variables: { t: l.token },
        },
        {
          next: (v) => {
            if (v.data?.hostedStepChanged.step === 'failed' && !pushedAt.has(l.session))
              pushedAt.set(l.session, performance.now());
          },
          error: () => {},
          complete: () => {},
        },
      );
      subscribed++;
    });
    // Let every subscription reach the server before anything settles.
    await sleep(1000 + sessions * 5);
    let polling = true;
    const pollers = links.map(async (l, i) => {
      await sleep((i * POLL_MS) / links.length);
      while (polling && !polledAt.has(l.session)) {
        const res = await fetch(`${http.url}/v1/hpp/status`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: l.token }),
        });
        const body = (await res.json()) as { step?: string };
        if (body.step === 'failed') polledAt.set(l.session, performance.now());
        else await sleep(POLL_MS);
      }
    });
    for (const l of links) {
      const em = worker.em.fork();
      const session = await em.findOneOrFail(Session, { id: l.session });
      await em.transactional((tx) =>
        transitionSessions(
          tx,
          [
            {
              kind: 'failed',
              session: entitySnapshot(session),
              set: { status: 'failed', step: 'failed', failureReason: 'expired', settledAt: new Date() },
            },
          ],
          'raise',
        ),
      );
      settledAt.set(l.session, performance.now());
      await sleep(SPACING_MS);
    }
    const deadline = Date.now() + 10_000;
    while ((pushedAt.size < sessions || polledAt.size < sessions) && Date.now() < deadline) await sleep(20);
    polling = false;
    await Promise.all(pollers);
    await Promise.all(clients.map((c) => c.dispose()));
    const lat = (seen: Map<string, number>) =>
      links
        .map((l) => (seen.get(l.session) ?? Number.NaN) - settledAt.get(l.session)!)
        .filter((v) => !Number.isNaN(v))
        .sort((a, b) => a - b);
    const push = lat(pushedAt);
    const poll = lat(polledAt);
    console.log(
      `settlement → status on the page (${sessions} sessions, ${subscribed} subscriptions, settled by a separate pool, ${os.cpus().length} cores)`,
    );
    console.log(
      `  pushed (hostedStepChanged):        p50 ${ms(percentile(push, 0.5))}   p95 ${ms(percentile(push, 0.95))}   seen ${push.length}/${sessions}   (target p95 < 200 ms)`,
    );
    console.log(
      `  polled (/v1/hpp/status, ${POLL_MS} ms):    p50 ${ms(percentile(poll, 0.5))}   p95 ${ms(percentile(poll, 0.95))}   seen ${poll.length}/${sessions}`,
    );
    if (push.length < sessions) throw new Error(`only ${push.length} of ${sessions} settlements were pushed`);
    figures.push(
      figure('settlement → page, pushed, p95', percentile(push, 0.95), 'ms', {
        baseline: percentile(poll, 0.95),
        target: { of: 'value', op: '<', bound: 200 },
      }),
    );
    return figures;
  } finally {
    await (await launching?.catch(() => undefined))?.close();
    await worker.close(true);
    await http.close();
    await app.close();
    for (let i = 0; i < 100 && process.getActiveResourcesInfo().includes('TCPSocketWrap'); i++)
      await sleep(50);
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
