import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from './app.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * `npm run cli` as package.json runs it (without npm in between): the program and its arguments, so
 * the tests run the launcher operators run.
 */
export function cliCommand(): { file: string; args: string[] } {
  const script = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { cli: string } }
  ).scripts.cli;
  const [program, ...args] = script.split(/\s+/);
  // npm puts node_modules/.bin first on PATH: `node` there is the project's pinned Node.
  return { file: path.join(root, 'node_modules/.bin', program!), args };
}

/** Runs the CLI with `env` (added to this process's) and resolves with its exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { file, args: pre } = cliCommand();
  // A variable given as undefined is removed (a child would otherwise see the text "undefined").
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return new Promise((resolve) => {
    execFile(file, [...pre, ...args], { cwd: root, env: merged }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The operator CLI as a separate process against a test app's database (with a network file of one
 * EVM network whose node is never asked); resolves with the JSON it printed.
 */
export function cliFor(
  t: TestApp,
  networks?: unknown,
): (...args: [...string[]] | [...string[], Record<string, string>]) => Promise<unknown> {
  const networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify(
      networks ?? { networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] },
    ),
  );
  return async (...given) => {
    // A last argument that is an object adds to the CLI's environment.
    const last = given.at(-1);
    const extra = typeof last === 'object' ? last : {};
    const args = (given as (string | Record<string, string>)[]).filter(
      (a): a is string => typeof a === 'string',
    );
    const env = {
      ...process.env,
      ...extra,
      DATABASE_URL: t.config.databaseUrl!,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: t.config.secretsKey!.toString('hex'),
    };
    const { file, args: pre } = cliCommand();
    const { stdout } = await promisify(execFile)(file, [...pre, ...args], { cwd: root, env });
    return JSON.parse(stdout);
  };
}
