import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * Layers point one way: no module of the service imports itself back through others, type imports
 * included (a type-only circle still ties the layers together).
 */

const root = path.resolve(import.meta.dirname, '../..');
const IMPORT = /^(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gms;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

it('no import circles in src/ and daemons/', () => {
  const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'daemons'))];
  const graph = new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(IMPORT)]
        .map((m) => path.resolve(path.dirname(file), m[1]!))
        .filter((dep) => files.includes(dep)),
    ]),
  );
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      circles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(root, f)));
      return;
    }
    state.set(file, 'open');
    for (const dep of graph.get(file) ?? []) visit(dep, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  expect(circles).toEqual([]);
});
