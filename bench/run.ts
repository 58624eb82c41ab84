/**
 * `npm run bench`: every benchmark in turn, each printing its figures next to a baseline measured in
 * the same run. `npm run bench -- http gas` runs a subset.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ALL = ['http', 'gas', 'webhooks', 'follower', 'takeover', 'payouts', 'batch', 'deposits', 'hosted'];
const here = path.dirname(fileURLToPath(import.meta.url));
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));

for (const name of chosen.length ? chosen : ALL) {
  const file = path.join(here, `${name}.ts`);
  if (!existsSync(file)) {
    console.log(`\n== ${name}: no such benchmark`);
    continue;
  }
  console.log(`\n== ${name}`);
  const mod = (await import(pathToFileURL(file).href)) as { main: (argv?: string[]) => Promise<void> };
  await mod.main([]);
}
process.exit(0);
