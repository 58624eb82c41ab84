import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EntitySchema } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/db/jobs.ts';
import { entityList } from '../../src/modules/entities.ts';
import { entities, modules, routes } from '../../src/modules/index.ts';
import type { ModuleContext } from '../../src/modules/module.ts';

/**
 * One list of modules (src/modules/index.ts): every module is on it, and every entity, route, GraphQL
 * file, job, chain consumer, relay handler and worker companion reaches the service through it — none
 * is registered anywhere else — and no lower layer imports a module.
 */

const root = path.resolve(import.meta.dirname, '../..');
const src = path.join(root, 'src');
const IMPORT =
  /^(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|^import\s+['"](\.{1,2}\/[^'"]+)['"]/gms;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

const files = [...sources(src), ...sources(path.join(root, 'daemons'))];
const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) =>
    path.resolve(path.dirname(file), (m[1] ?? m[2])!),
  );
/** Every file that imports `target`. */
const importers = (target: string) => files.filter((f) => importsOf(f).includes(target));
const rel = (f: string) => path.relative(root, f);
const modulesDir = path.join(src, 'modules');
const isIndex = (f: string) =>
  path.basename(f) === 'index.ts' && path.dirname(path.dirname(f)) === modulesDir;

describe('the module list', () => {
  it('lists every module directory once', () => {
    const dirs = readdirSync(modulesDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(modules.map((m) => m.name).sort()).toEqual(dirs);
    const indexes = importsOf(path.join(modulesDir, 'index.ts')).filter(isIndex);
    expect(indexes.map((f) => path.basename(path.dirname(f))).sort()).toEqual(dirs);
  });

  it('no layer below the modules imports one (only the composition root, the CLI, daemons and the dev stack do)', () => {
    const top = ['daemons/', 'src/modules/', 'src/devstack/', 'src/cli/'];
    const roots = ['src/app.ts', 'src/services.ts', 'src/cli.ts', 'src/main.ts', 'src/worker-main.ts'];
    const lower = files.filter((f) => {
      const r = rel(f);
      return !top.some((dir) => r.startsWith(dir)) && !roots.includes(r);
    });
    const arrows = lower.flatMap((f) =>
      importsOf(f)
        .filter((dep) => dep.startsWith(`${modulesDir}${path.sep}`))
        .map((dep) => `${rel(f)} → ${rel(dep)}`),
    );
    expect(arrows).toEqual([]);
  });

  it('every GraphQL file is registered by a module index, and imported by nothing else but GraphQL files', () => {
    for (const file of files.filter((f) => f.endsWith('.graphql.ts'))) {
      const by = importers(file);
      expect(by.filter(isIndex).length, rel(file)).toBe(1);
      expect(by.filter((f) => !isIndex(f) && !f.endsWith('.graphql.ts')).map(rel), rel(file)).toEqual([]);
    }
  });

  it('route tables, chain consumers and relay handlers are taken only by module indexes', () => {
    const REGISTERED =
      /export const (\w+) = defineRoutes\(|export function (\w+)\((?:(?!\n}\n|export )[\s\S])*?\): (?:Consumer|RelayHandler) \{/g;
    let found = 0;
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(REGISTERED)) {
        const name = (m[1] ?? m[2])!;
        found++;
        const takers = importers(file).filter((f) =>
          new RegExp(`import[^;]*\\b${name}\\b[^;]*from`, 's').test(readFileSync(f, 'utf8')),
        );
        expect(takers.map(rel), `${rel(file)}: ${name}`).toEqual(
          takers.filter(isIndex).length === 1 ? takers.filter(isIndex).map(rel) : ['a module index'],
        );
      }
    }
    // 7 route tables, 5 consumers, 3 relay handlers.
    expect(found).toBe(15);
    // The relayer learns its handlers from the list, in one place.
    const registering = files.filter((f) => /relayer\.register\(/.test(readFileSync(f, 'utf8')));
    expect(registering.map(rel)).toEqual(['src/app.ts']);
  });

  it('worker companions (the webhook waker) are started from the list, by the worker, and nowhere else', () => {
    const calling = (pattern: RegExp) => files.filter((f) => pattern.test(readFileSync(f, 'utf8'))).map(rel);
    expect(calling(/\.wake\(/)).toEqual(['src/modules/webhook/index.ts']);
    expect(calling(/\.companion\(/)).toEqual(['daemons/index.ts']);
    expect(calling(/\bstartCompanions\(/).sort()).toEqual(['daemons/index.ts', 'src/worker/runner.ts']);
    expect(modules.filter((m) => m.companion).map((m) => m.name)).toEqual(['webhook']);
  });

  it('every entity is managed: each exported entity schema is in the list', async () => {
    const schemas: EntitySchema[] = [];
    for (const file of files.filter((f) => f.endsWith('.entity.ts'))) {
      const exported = await import(pathToFileURL(file).href);
      schemas.push(...Object.values(exported).filter((v): v is EntitySchema => v instanceof EntitySchema));
    }
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) expect(entities, schema.meta.className).toContain(schema);
    expect(new Set(entities).size).toBe(entities.length);
    // The entity list the CLI loads without the modules' GraphQL is the same set.
    expect(new Set(entityList)).toEqual(new Set(entities));
  });

  it('every job has exactly one task, from the list', async () => {
    const jobs: JobDefinition<unknown>[] = [];
    for (const file of files.filter(
      (f) => /defineJob\(/.test(readFileSync(f, 'utf8')) && !f.endsWith('/db/jobs.ts'),
    )) {
      const exported = await import(pathToFileURL(file).href);
      jobs.push(
        ...Object.values(exported).filter(
          (v): v is JobDefinition<unknown> =>
            typeof v === 'object' &&
            v !== null &&
            'name' in v &&
            'payload' in v &&
            typeof v.name === 'string',
        ),
      );
    }
    // Tasks are built lazily from the services: a context that is never read is enough to list them.
    const context = { services: {}, fork: () => undefined } as unknown as ModuleContext;
    const tasks = modules.flatMap((m) => m.tasks?.(context) ?? []).map((t) => t.job.name);
    expect(new Set(tasks).size).toBe(tasks.length);
    expect([...new Set(jobs.map((j) => j.name))].sort()).toEqual([...tasks].sort());
    for (const { task } of modules.flatMap((m) => m.crontab ?? [])) expect(tasks).toContain(task);
  });

  it('routes are unique by method and path', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
