import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { PUBLIC_ERROR_CODES } from '../../src/errors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { type CodeBlock, codeBlocks, markdownPages, readPage, root } from '../support/markdown.ts';
import { IdMap, isAssignment, isTranscript, transcriptSteps } from '../support/samples.ts';

/**
 * The shell and TypeScript samples of README.md and docs/ that call the API run against a test stack,
 * as a reader would run them against `npm start`: from a checkout whose `.data/devstack.json` describes
 * the stack, with the CLI on its database. A sample is marked by the comment before its fence:
 * `<!-- sample: run -->`, `<!-- sample: not run (why) -->`, or `<!-- sample: the code of <file> -->`
 * (the block must appear in that file, which other tests run). Every sample that calls the API carries
 * one, so a new sample cannot go unnoticed.
 *
 * A transcript (`$ ` lines, each followed by what it printed) runs command by command: the printed
 * JSON's keys must appear in what the command prints now, and the ids it shows (`mer_…`, `key_…`,
 * `sk_…`, `cs_…`) stand, in the commands after it, for the ids the run printed instead. Placeholders
 * such as `key_…` and `sk_…` are the stack's demo merchant, and `http://localhost:8080` its address.
 */

const CALLS_API = /\/v1\/|\/graphql|signedFetch\(|createGatewayClient\(|signed-curl\.sh|signedPost\(/;
const TOOLS = ['jq', 'curl', 'openssl'];

interface Sample extends CodeBlock {
  page: string;
}
const samples: Sample[] = markdownPages()
  .filter((page) => page === 'README.md' || page.startsWith('docs/'))
  .flatMap((page) => codeBlocks(readPage(page)).map((block) => ({ ...block, page })))
  .filter(
    (b) =>
      (b.lang === 'sh' || b.lang === 'ts') && (CALLS_API.test(b.code) || b.comment?.startsWith('sample:')),
  );
const marked = (kind: RegExp) => samples.filter((s) => kind.test(s.comment ?? ''));

it('every sample that calls the API says whether it runs, and why not', () => {
  const unmarked = samples
    .filter((s) => !/^sample: (run|not run \(.+\)|the code of \S+)$/.test(s.comment ?? ''))
    .map((s) => `${s.page}:${s.line}`);
  expect(unmarked).toEqual([]);
  expect(marked(/^sample: run$/).length).toBeGreaterThanOrEqual(8);
});

it.each(marked(/^sample: the code of /).map((s) => [`${s.page}:${s.line}`, s] as const))(
  '%s is the code of the file it names',
  (_, sample) => {
    const file = /^sample: the code of (\S+)$/.exec(sample.comment ?? '')?.[1] ?? '';
    expect(readFileSync(path.join(root, file), 'utf8')).toContain(sample.code);
  },
);

/** Why the shell samples cannot run here, or undefined when they can (always in CI: there they fail). */
const absent = process.env.CI
  ? undefined
  : TOOLS.filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error).join(', ') || undefined;
// A page's samples run in order (a transcript's ids serve the samples after it): all of them or none.
const needsTools = new Set(
  samples
    .filter((s) => s.lang === 'sh' && /\b(jq|curl|openssl)\b|signed-curl\.sh/.test(s.code))
    .map((s) => s.page),
);
if (absent) console.warn(`docs samples skipped: ${absent} not installed; CI installs them (.ci/run)`);

describe('samples run against the test stack', () => {
  let t: TestApp;
  let sandbox: string;
  let env: Record<string, string>;
  const ids = new Map<string, IdMap>(); // per page: what the page's transcripts printed
  let counter = 0;

  beforeAll(async () => {
    const networks = {
      networks: [
        {
          id: 'eth',
          kind: 'evm',
          chainId: 31337,
          rpcUrls: ['http://127.0.0.1:9'], // never asked by these samples
          tokens: [
            { symbol: 'USDT', address: `0x${'11'.repeat(20)}`, decimals: 6 },
            { symbol: 'USDC', address: `0x${'22'.repeat(20)}`, decimals: 6 },
          ],
          contracts: { paymentRouter: `0x${'33'.repeat(20)}` },
        },
      ],
    };
    t = await startTestApp({ networks: networkFileSchema.parse(networks) });
    const demo = await t.merchant('Demo merchant');
    await t.app.services.merchants.setSettlementWallet(t.app.fork(), demo.id, 'eth', `0x${'44'.repeat(20)}`);
    const session = (await (await t.signed(demo, 'POST', '/v1/cashier/init', {})).json()) as {
      session: string;
    };

    // A checkout of this repository whose .data describes the test stack, as `npm start` writes it.
    sandbox = mkdtempSync(path.join(os.tmpdir(), 'docs-samples-'));
    for (const entry of readdirSync(root))
      if (entry !== '.data') symlinkSync(path.join(root, entry), path.join(sandbox, entry));
    mkdirSync(path.join(sandbox, '.data'));
    const devstack = {
      base_url: t.http.url,
      graphql_url: `${t.http.url}/graphql`,
      operator_token: await t.operatorToken(),
      merchant: { id: demo.id, api_key: demo.keyId, api_secret: demo.secret },
    };
    writeFileSync(path.join(sandbox, '.data/devstack.json'), JSON.stringify(devstack, null, 2));
    writeFileSync(path.join(sandbox, '.data/networks.json'), JSON.stringify(networks));
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: t.config.databaseUrl ?? '',
      NETWORKS_FILE: path.join(sandbox, '.data/networks.json'),
      SECRETS_KEY: t.config.secretsKey?.toString('hex') ?? '',
      WEBHOOK_ALLOW_PRIVATE: 'true', // as on the embedded stack
      LOG_LEVEL: 'error',
    };
    const placeholders = { 'key_…': demo.keyId, 'sk_…': demo.secret, 'cs_…': session.session };
    const literals = { 'http://localhost:8080': t.http.url };
    for (const page of new Set(samples.map((s) => s.page))) ids.set(page, new IdMap(placeholders, literals));
  });
  afterAll(() => t?.close());

  /** Runs one command or script in the sandbox; resolves with its output, rejects on a non-zero exit. */
  function run(file: string, args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(file, args, { cwd: sandbox, env, timeout: 60_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout.trim()),
      );
    });
  }

  /** What a sample that is not a transcript must not print: an error envelope, a failed status or code. */
  function expectSuccess(output: string, where: string) {
    expect(output, where).not.toMatch(/"error"\s*:\s*\{|\berror: \{/);
    const first = output.split(/\s+/)[0] ?? '';
    expect(first, where).not.toMatch(/^[45]\d\d$/);
    expect(PUBLIC_ERROR_CODES as readonly string[], where).not.toContain(first);
  }

  it.for(marked(/^sample: run$/).map((s) => [`${s.page}:${s.line}`, s] as const))(
    '%s',
    async ([where, sample], context) => {
      if (absent && needsTools.has(sample.page)) context.skip(`${absent} not installed`);
      const map = ids.get(sample.page) as IdMap;
      if (sample.lang === 'ts') {
        const file = path.join(sandbox, `sample-${++counter}.ts`);
        writeFileSync(file, map.apply(sample.code));
        expectSuccess(await run(path.join(root, 'node_modules/.bin/tsx'), [file]), where);
      } else if (!isTranscript(sample.code)) {
        expectSuccess(await run('bash', ['-euo', 'pipefail', '-c', map.apply(sample.code)]), where);
      } else {
        const assignments: string[] = []; // `$ BASE=$(…)` lines hold for the rest of the transcript
        for (const step of transcriptSteps(sample.code)) {
          const command = map.apply(step.command);
          const output = await run('bash', ['-euo', 'pipefail', '-c', [...assignments, command].join('\n')]);
          if (isAssignment(command)) assignments.push(command);
          const compact = output.replace(/\s+/g, '');
          for (const key of step.printed.matchAll(/"(\w+)"\s*:/g))
            expect(compact, `${where}: ${step.command}\n${output}`).toContain(`"${key[1]}":`);
          map.learn(step.printed, output);
        }
      }
    },
  );
});
