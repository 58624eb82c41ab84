import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded-postgres.ts';
import { startDevDatabase } from '../../src/devstack/database.ts';
import { devstackFile } from '../../src/devstack/provision.ts';

/** The embedded database belongs to its DATA_DIR: another instance never runs on it by accident. */

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

it('a second data directory on the same port is refused; its own directory shares the running server', async () => {
  const [a, b] = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'datadir-')));
  const port = await freePort();
  const first = await startDevDatabase(a!, port);
  stops.push(async () => {
    await first.server.stop();
    rmSync(a!, { recursive: true, force: true });
  });

  await expect(startDevDatabase(b!, port)).rejects.toThrow(
    /already serves the embedded database of .*datadir-.*set EMBEDDED_PG_PORT/,
  );
  // The same directory (the CLI beside `npm start`) uses the running server.
  const again = await startDevDatabase(a!, port);
  expect(again.url).toBe(first.url);

  // Its own directory, but a port other than the one its server runs on: told which port to use.
  await expect(startDevDatabase(a!, await freePort())).rejects.toThrow(
    new RegExp(`already runs on port ${port}: set EMBEDDED_PG_PORT=${port}`),
  );

  // A database whose recorded identity is not this directory's (its instance file replaced): refused.
  writeFileSync(path.join(a!, 'instance'), 'someone-else\n');
  await expect(startDevDatabase(a!, port)).rejects.toThrow(/belongs to another data directory/);
}, 120_000);

it('two instances on one DATA_DIR with different ports never rewrite each other’s devstack.json', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'datadir-'));
  try {
    // The first instance claims devstack.json; while it lives, the second describes itself beside it.
    expect(devstackFile(dir, '8080', process.pid)).toBe(path.join(dir, 'devstack.json'));
    expect(devstackFile(dir, '8081', process.ppid)).toBe(path.join(dir, 'devstack-8081.json'));
    // The owner restarting keeps its file.
    expect(devstackFile(dir, '8080', process.pid)).toBe(path.join(dir, 'devstack.json'));
    // An owner that is gone (no such process): the claim is taken over.
    writeFileSync(path.join(dir, 'devstack.owner'), '2147483646\n');
    expect(devstackFile(dir, '8081', process.ppid)).toBe(path.join(dir, 'devstack.json'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
