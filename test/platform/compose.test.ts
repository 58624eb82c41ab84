import { readFileSync } from 'node:fs';
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

it('the Dockerfile installs from the lockfile at build time and copies what the service runs', () => {
  const dockerfile = read('Dockerfile');
  expect(dockerfile).toMatch(/^FROM node:24/m);
  expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json/m);
  expect(dockerfile).toMatch(/^RUN npm install --omit=dev/m);
  for (const dir of ['src', 'daemons', 'migrations', 'contracts/artifacts']) {
    expect(dockerfile).toMatch(new RegExp(`^COPY ${dir} `, 'm'));
  }
  expect(dockerfile).toMatch(/^CMD \["npm", "start"\]/m);
});
