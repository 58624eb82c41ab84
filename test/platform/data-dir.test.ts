import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded-postgres.ts';
import { startDevDatabase } from '../../src/devstack/database.ts';

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
