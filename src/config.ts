import { accessSync, constants, readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Process configuration, read once from the environment into a typed object and handed explicitly to
 * whoever needs it. With no DATABASE_URL the service runs on embedded defaults (D10): an embedded
 * PostgreSQL and local chains under DATA_DIR. A bad value stops startup with a message naming it.
 */

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const minutes = z.coerce
  .number()
  .int()
  .positive()
  .max(7 * 24 * 60);

const days = z.coerce.number().int().min(0).max(36_500);

const envSchema = z.object({
  /** `production` refuses private webhook targets and requires SECRETS_KEY. */
  NODE_ENV: z.enum(['production', 'development', 'test']).default('development'),
  /** HTTP listen port; 0 picks a free one (tests). */
  PORT: z.coerce
    .number({ error: 'must be a TCP port number (0-65535)' })
    .int('must be a TCP port number (0-65535)')
    .min(0, 'must be a TCP port number (0-65535)')
    .max(65535, 'must be a TCP port number (0-65535)')
    .default(8080),
  /** Listen address. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Public address of this service, used in hosted links; defaults to http://localhost:PORT. */
  PUBLIC_BASE_URL: z.url().optional(),
  /** PostgreSQL connection string. Unset: start an embedded PostgreSQL under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .refine(isPostgresUrl, 'must be a URL such as postgres://user:password@host:5432/database')
    .optional(),
  /** Port of the embedded PostgreSQL (embedded mode only); change it when 54329 is taken. */
  EMBEDDED_PG_PORT: z.coerce
    .number({ error: 'must be a TCP port number (1-65535)' })
    .int('must be a TCP port number (1-65535)')
    .min(1, 'must be a TCP port number (1-65535)')
    .max(65535, 'must be a TCP port number (1-65535)')
    .optional(),
  /** Longest a client may take to send the request headers; slow-header clients are cut off then. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Longest a client may take to send a whole request (headers and a body of up to 1 MiB). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * How long a connection may stay idle between requests. Longer than the 60 s idle timeout of common
   * load balancers, so the proxy, not the service, closes an idle connection: a service closing first
   * races the proxy's next request on it (a reset, a 502). Clients that honour `Keep-Alive: timeout`
   * close theirs a little before.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
  /** JSON network file (see README). Unset with no DATABASE_URL: local anvil chains and a Tron facade. */
  NETWORKS_FILE: z.string().min(1).optional(),
  /** 32-byte key (64 hex chars or base64) encrypting API secrets at rest. Embedded: generated once. */
  SECRETS_KEY: z.string().optional(),
  /** Where embedded PostgreSQL, chain state and devstack.json live. */
  DATA_DIR: z.string().min(1).default('.data'),
  /** Trust X-Forwarded-For for the client IP (only behind a proxy you control). */
  TRUST_PROXY: bool.default(false),
  /** Run the daemons (listener, relayer, webhook outbox) inside the API process. */
  RUN_WORKER: bool.default(true),
  /** Longest a single database statement of a request or job may run before it fails with 503. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** The most an orderly shutdown may take before the process exits anyway (ms). */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** Concurrent jobs per worker process. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(8),
  /** Allow webhook targets on loopback/private addresses (development only). */
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  /** A still-pending session expires this long after creation (D5). */
  SESSION_TTL_MINUTES: minutes.default(60),
  /** A reported payment transaction never mined within this long settles failed (D5). */
  PAYMENT_MINING_TIMEOUT_MINUTES: minutes.default(30),
  /** Hosted link lifetime (D6). */
  HPP_LINK_TTL_MINUTES: minutes.default(30),
  /** Days a session that failed without a payment is kept, then deleted; 0 keeps them forever. */
  SESSION_RETENTION_DAYS: days.default(30),
  /** Days a webhook event whose deliveries all ended is kept (with them), then deleted; 0: forever. */
  WEBHOOK_RETENTION_DAYS: days.default(30),
  /** `debug`, `info`, `warn`, `error`. */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** `GET /metrics` (Prometheus): `token` (an operator bearer token), `public`, or `off`. */
  METRICS: z.enum(['token', 'public', 'off']).default('token'),
  /**
   * Browser origins that may call `/graphql` from another origin: comma-separated origins
   * (`https://console.example.com`), `*` for any, or empty for none. Unset: none in production,
   * loopback origins (`http://localhost:*`, `127.0.0.1`, `[::1]`) otherwise. Never with credentials.
   */
  GRAPHQL_CORS_ORIGINS: z.string().optional(),
});

/** A postgres:// or postgresql:// URL with a host and, when given, a numeric port. */
function isPostgresUrl(value: string): boolean {
  if (!/^postgres(ql)?:\/\//.test(value)) return false;
  try {
    const url = new URL(value);
    return url.hostname.length > 0 || url.searchParams.has('host');
  } catch {
    return false;
  }
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  /** Undefined until the embedded database is up (embedded mode). */
  databaseUrl: string | undefined;
  networksFile: string | undefined;
  /** True when no DATABASE_URL was given: embedded PostgreSQL and local chains. */
  embedded: boolean;
  secretsKey: Buffer | undefined;
  dataDir: string;
  trustProxy: boolean;
  runWorker: boolean;
  workerConcurrency: number;
  dbStatementTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** Embedded PostgreSQL port, when set (embedded mode). */
  embeddedPgPort: number | undefined;
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  webhookAllowPrivate: boolean;
  sessionTtlMinutes: number;
  paymentMiningTimeoutMinutes: number;
  hppLinkTtlMinutes: number;
  /** Retention (src/modules/retention): days; 0 keeps forever. */
  sessionRetentionDays: number;
  webhookRetentionDays: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Who may read `GET /metrics`. */
  metrics: 'token' | 'public' | 'off';
  /** Which other origins a browser may call `/graphql` from (GRAPHQL_CORS_ORIGINS). */
  graphqlCorsOrigins: CorsOrigins;
}

/** `any` origin, the `loopback` ones (development default), or exactly these (none when empty). */
export type CorsOrigins = 'any' | 'loopback' | readonly string[];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Decodes a 32-byte key given as 64 hex characters or base64. */
export function parseSecretsKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes: 64 hex characters or base64');
  return key;
}

/** Parses the environment; throws ConfigError naming every bad variable. */
/** Settings that may be given as a file instead (`NAME_FILE`: Docker secrets, a mounted key file). */
export const FILE_SETTINGS = ['SECRETS_KEY', 'DATABASE_URL'] as const;

/**
 * `NAME_FILE` read into `NAME` (the file's content, trimmed), so a secret never has to sit in the
 * environment. Giving both is refused: which one wins would be a guess.
 */
function withFileSettings(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of FILE_SETTINGS) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) throw new ConfigError(`Invalid configuration: set ${name} or ${name}_FILE, not both`);
    try {
      out[name] = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration: ${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
  }
  return out;
}

export function loadConfig(given: Record<string, string | undefined> = process.env): Config {
  const env = withFileSettings(given);
  const result = envSchema.safeParse(env);
  if (!result.success) {
    // One line per bad setting: its name, what is expected and what was given.
    const lines = result.error.issues.map((i) => {
      const name = i.path.join('.');
      const given = env[name];
      return `Invalid configuration: ${name}: ${i.message}${given === undefined ? '' : ` (got ${JSON.stringify(given)})`}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const e = result.data;
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'Invalid configuration: HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  const embedded = e.DATABASE_URL === undefined;
  if (!embedded && e.NETWORKS_FILE === undefined) {
    throw new ConfigError(
      'NETWORKS_FILE is required when DATABASE_URL is set (nothing embedded starts then)',
    );
  }
  if (e.NODE_ENV === 'production' && !e.SECRETS_KEY) {
    throw new ConfigError('SECRETS_KEY is required when NODE_ENV=production');
  }
  if (e.NODE_ENV === 'production' && e.WEBHOOK_ALLOW_PRIVATE) {
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE cannot be enabled when NODE_ENV=production');
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    databaseUrl: e.DATABASE_URL,
    networksFile: e.NETWORKS_FILE,
    embedded,
    secretsKey: e.SECRETS_KEY ? parseSecretsKey(e.SECRETS_KEY) : undefined,
    dataDir: e.DATA_DIR,
    trustProxy: e.TRUST_PROXY,
    runWorker: e.RUN_WORKER,
    workerConcurrency: e.WORKER_CONCURRENCY,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    httpHeadersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? (e.NODE_ENV !== 'production' && embedded),
    sessionTtlMinutes: e.SESSION_TTL_MINUTES,
    paymentMiningTimeoutMinutes: e.PAYMENT_MINING_TIMEOUT_MINUTES,
    hppLinkTtlMinutes: e.HPP_LINK_TTL_MINUTES,
    sessionRetentionDays: e.SESSION_RETENTION_DAYS,
    webhookRetentionDays: e.WEBHOOK_RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    metrics: e.METRICS,
    graphqlCorsOrigins: parseCorsOrigins(e.GRAPHQL_CORS_ORIGINS, e.NODE_ENV),
  };
}

/**
 * GRAPHQL_CORS_ORIGINS: each entry must be an origin (http(s), host, optional port; no path), so a
 * typo cannot silently allow nothing or something else. Entries are kept as browsers send them
 * (`https://X.example:443` → `https://x.example`).
 */
export function parseCorsOrigins(value: string | undefined, env: Config['env']): CorsOrigins {
  if (value === undefined) return env === 'production' ? [] : 'loopback';
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.includes('*')) {
    if (entries.length > 1)
      throw new ConfigError('Invalid configuration: GRAPHQL_CORS_ORIGINS: `*` cannot be listed with origins');
    return 'any';
  }
  const origins: string[] = [];
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
      if ((url.protocol === 'http:' || url.protocol === 'https:') && bare) origin = url.origin;
    } catch {}
    if (!origin)
      throw new ConfigError(
        `Invalid configuration: GRAPHQL_CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin such as https://console.example.com (scheme, host and port only)`,
      );
    origins.push(origin);
  }
  return origins;
}

/**
 * Stops start-up with one line when a file a setting names cannot be read (checked where the file is
 * about to be used, so configurations built in memory, as in tests, need no file).
 */
export function requireReadableFile(setting: string, file: string, expected: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not readable';
    throw new ConfigError(`Invalid configuration: ${setting}: must name ${expected} (${reason}: ${file})`);
  }
}
