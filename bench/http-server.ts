/**
 * One server of the HTTP benchmark, in its own process so that the load generator does not share its
 * event loop: `service` (the gateway on DATABASE_URL) or `baseline` (bare node:http + one INSERT per
 * request). Prints one JSON line with its URL (and, for the service, a key and a session to read).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startHttpServer } from '../src/http/server.ts';
import { createLogger } from '../src/lib/logger.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

const [kind] = process.argv.slice(2);
// A clean exit on SIGINT lets `--cpu-prof` write its profile.
process.on('SIGINT', () => process.exit(0));
const url = process.env.DATABASE_URL!;

if (kind === 'baseline') {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  await pool.query(
    'create table if not exists baseline (id bigserial primary key, nonce text not null, at timestamptz default now())',
  );
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      pool.query('insert into baseline (nonce) values ($1)', [randomBytes(8).toString('hex')]).then(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
} else {
  const config = loadConfig({
    // As deployed: production mode (graphql-js skips its development-time checks).
    NODE_ENV: 'production',
    DATABASE_URL: url,
    NETWORKS_FILE: '(bench)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
  });
  const networks = networkFileSchema.parse({
    networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
  });
  const app = await createApp({ config, networks, logger: createLogger('error') });
  const http = await startHttpServer(app);
  const em = app.fork();
  const merchant = await app.services.merchants.create(em, { name: 'bench' });
  const key = await app.services.merchants.issueKey(em, merchant.id);
  const target = '/v1/cashier/init';
  const res = await fetch(`${http.url}${target}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signedHeaders(key.id, key.secret, { method: 'POST', target, body: '{}' }),
    },
    body: '{}',
  });
  if (res.status !== 200) throw new Error(`could not create a session: ${await res.text()}`);
  const { session } = (await res.json()) as { session: string };
  console.log(JSON.stringify({ url: http.url, keyId: key.id, secret: key.secret, session }));
}
