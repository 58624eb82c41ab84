import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from './app.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The operator CLI as a separate process against a test app's database (with a network file of one
 * EVM network whose node is never asked); resolves with the JSON it printed.
 */
export function cliFor(t: TestApp, networks?: unknown): (...args: string[]) => Promise<unknown> {
  const networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify(
      networks ?? { networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] },
    ),
  );
  return async (...args) => {
    const env = {
      ...process.env,
      DATABASE_URL: t.config.databaseUrl!,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: t.config.secretsKey!.toString('hex'),
    };
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/tsx'),
      ['src/cli.ts', ...args],
      {
        cwd: root,
        env,
      },
    );
    return JSON.parse(stdout);
  };
}
