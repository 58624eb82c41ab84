import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import {
  assertPublicUrl,
  nonPublicKind,
  type Resolver,
  systemResolver,
} from '../../src/modules/webhook/ssrf.ts';
import { WebhookAttempt, WebhookDelivery } from '../../src/modules/webhook/webhook.entity.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  merchantWithHook,
  type Receiver,
  startReceiver,
  type WebhookWorker,
  webhookWorker,
} from './support.ts';

let t: TestApp;
let r: Receiver;
let prod: WebhookWorker;
let resolved: string[] = [];

/** Test names resolve as a hostile DNS would answer; anything else goes to the OS resolver. */
const resolver: Resolver = async (host) => {
  resolved.push(host);
  if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
  if (host === 'mixed.test')
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
  if (host === 'rebind.test') return [{ address: '127.0.0.1', family: 4 }];
  return systemResolver(host);
};

beforeAll(async () => {
  t = await startTestApp();
  r = await startReceiver(200);
  // Production mode: config.webhookAllowPrivate is false there (and cannot be switched on).
  expect(
    () =>
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://x/y',
        NETWORKS_FILE: 'n',
        SECRETS_KEY: '00'.repeat(32),
      }).webhookAllowPrivate,
  ).not.toThrow();
  expect(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://x/y',
      NETWORKS_FILE: 'n',
      SECRETS_KEY: '00'.repeat(32),
    }).webhookAllowPrivate,
  ).toBe(false);
  prod = await webhookWorker(t, { allowPrivate: false, resolve: resolver });
});
afterAll(async () => {
  await prod?.close();
  await r?.close();
  await t?.close();
});

describe('send-time refusal in production', () => {
  const port = () => r.port;
  const targets: [string, () => string, RegExp][] = [
    ['IPv4 loopback', () => `http://127.0.0.1:${port()}/hook`, /loopback address \(127\.0\.0\.1\)/],
    ['loopback elsewhere in 127/8', () => `http://127.1.2.3:${port()}/hook`, /loopback/],
    ['IPv6 loopback', () => `http://[::1]:${port()}/hook`, /loopback/],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/hook`, /loopback/],
    ['decimal-encoded loopback', () => `http://2130706433:${port()}/hook`, /loopback/],
    [
      'a DNS name resolving to loopback',
      () => `http://localhost:${port()}/hook`,
      /localhost resolves to a loopback address/,
    ],
    ['10/8', () => 'http://10.1.2.3/hook', /private address/],
    ['172.16/12', () => 'http://172.31.255.1/hook', /private address/],
    ['192.168/16', () => 'https://192.168.0.10/hook', /private address/],
    ['fc00::/7', () => 'http://[fd12:3456::1]/hook', /private address/],
    ['link-local 169.254/16', () => 'http://169.254.10.10/hook', /link-local/],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', /link-local/],
    [
      'metadata by name',
      () => 'http://metadata.test/computeMetadata/v1/',
      /metadata\.test resolves to a link-local address \(169\.254\.169\.254\)/,
    ],
    ['IPv6 link-local', () => 'http://[fe80::1]/hook', /link-local/],
    ['unspecified 0.0.0.0', () => `http://0.0.0.0:${port()}/hook`, /unspecified/],
    ['unspecified ::', () => `http://[::]:${port()}/hook`, /unspecified/],
    ['CGNAT 100.64/10', () => 'http://100.64.0.1/hook', /carrier-grade NAT/],
    [
      'a name with one private address among public ones',
      () => 'http://mixed.test/hook',
      /mixed\.test resolves to a private address \(10\.0\.0\.7\)/,
    ],
    ['a non-http scheme', () => 'ftp://example.com/hook', /must be http or https/],
    ['Teredo 2001::/32', () => 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', /Teredo address/],
    ['site-local fec0::/10', () => 'http://[fec0::1]/hook', /site-local address/],
    ['the 6to4 relay anycast 192.88.99.0/24', () => 'http://192.88.99.1/hook', /reserved address/],
    ['NAT64 local-use 64:ff9b:1::/48', () => 'http://[64:ff9b:1::808:808]/hook', /NAT64 local-use address/],
    ['IPv4-translated ::ffff:0:0:0/96', () => 'http://[::ffff:0:808:808]/hook', /IPv4-translated address/],
  ];

  for (const [name, url, error] of targets) {
    it(`refuses ${name}: one attempt recorded, failed, not retried`, async () => {
      const m = await merchantWithHook(t, url());
      const id = (await enqueueWebhook(t.app.fork(), {
        merchantId: m.id,
        event: 'payment.completed',
        subjectId: `cs_${name}`,
        body: {},
      }))!;
      const before = r.requests.length;
      await prod.runDue();
      const d = await t.app.fork().findOneOrFail(WebhookDelivery, { id });
      expect(d.status).toBe('failed');
      expect(d.attempts).toBe(1);
      expect(d.lastError).toMatch(error);
      const rows = await t.app.fork().find(WebhookAttempt, { delivery: id });
      expect(rows).toHaveLength(1);
      expect(rows[0]!.error).toMatch(error);
      expect(rows[0]!.statusCode).toBeNull();
      expect(r.requests.length).toBe(before);
      // No retry is queued: an hour later nothing more happens.
      await prod.advance(3_600_000);
      await prod.runDue();
      expect((await t.app.fork().findOneOrFail(WebhookDelivery, { id })).attempts).toBe(1);
    });
  }
});

it('connects to the vetted address, never re-resolving (DNS rebinding)', async () => {
  // allowPrivate (embedded stack): the name resolves once, through our resolver, to loopback; the OS
  // resolver does not know `rebind.test`, so the request can only have gone to the vetted address.
  const dev = await webhookWorker(t, { allowPrivate: true, resolve: resolver });
  try {
    resolved = [];
    const m = await merchantWithHook(t, `http://rebind.test:${r.port}/hook`);
    const before = r.requests.length;
    const id = (await enqueueWebhook(t.app.fork(), {
      merchantId: m.id,
      event: 'payout.completed',
      subjectId: 'po_rebind',
      body: {},
    }))!;
    await dev.runDue();
    expect((await t.app.fork().findOneOrFail(WebhookDelivery, { id })).status).toBe('delivered');
    expect(r.requests.length).toBe(before + 1);
    expect(r.requests.at(-1)!.headers.host).toBe(`rebind.test:${r.port}`);
    expect(resolved).toEqual(['rebind.test']);
  } finally {
    await dev.close();
  }
});

describe('nonPublicKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.15.0.1', undefined],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', undefined],
    ['192.168.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::abcd', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.0', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['100.128.0.1', undefined],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['8.8.8.8', undefined],
    ['93.184.216.34', undefined],
    ['2606:4700:4700::1111', undefined],
    // Ranges the hand-written table missed.
    ['::ffff:0:a00:1', 'IPv4-translated'],
    ['::ffff:0:808:808', 'IPv4-translated'],
    ['64:ff9b:1::1', 'NAT64 local-use'],
    ['64:ff9b:1:ffff::808:808', 'NAT64 local-use'],
    ['fec0::1', 'site-local'],
    ['feff::1', 'site-local'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['192.88.99.1', 'reserved'],
    ['192.88.99.255', 'reserved'],
    // The rest of the special-purpose space, through ipaddr.js's classification.
    ['::', 'unspecified'],
    ['::a00:1', 'reserved'],
    ['::808:808', 'reserved'],
    ['100::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['fe80::1%eth0', 'link-local'],
    // Embedded IPv4 is judged by the address it carries, both ways.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:100.64.0.1', 'carrier-grade NAT'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['::ffff:8.8.8.8', undefined],
    ['::ffff:808:808', undefined],
    ['64:ff9b::808:808', undefined],
    ['2002:808:808::1', undefined],
    // Public addresses pass.
    ['1.1.1.1', undefined],
    ['192.88.98.1', undefined],
    ['192.88.100.1', undefined],
    ['2001:4860:4860::8888', undefined],
    ['2a00:1450:4001::200e', undefined],
    ['not an address', 'invalid'],
  ])('%s → %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });
});

describe('assertPublicUrl (create-time check for other modules)', () => {
  it('accepts a public address and refuses private ones with a validation error', async () => {
    await expect(assertPublicUrl('https://93.184.216.34/hook', false)).resolves.toBeUndefined();
    await expect(assertPublicUrl('http://127.0.0.1/hook', false)).rejects.toMatchObject({
      code: 'validation',
      message: 'callback_url: 127.0.0.1 resolves to a loopback address (127.0.0.1)',
    });
    await expect(assertPublicUrl('http://localhost:8080/x', false, 'webhook_url')).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/^webhook_url: localhost resolves to a loopback address/),
    });
    await expect(
      assertPublicUrl('http://metadata.test/', false, 'callback_url', resolver),
    ).rejects.toMatchObject({
      code: 'validation',
    });
    await expect(assertPublicUrl('http://no-such-host.invalid/', false)).rejects.toMatchObject({
      code: 'validation',
    });
    await expect(assertPublicUrl('gopher://example.com/', false)).rejects.toMatchObject({
      code: 'validation',
    });
  });

  it('allows loopback and private targets when allowPrivate (embedded stack)', async () => {
    await expect(assertPublicUrl('http://127.0.0.1:9/hook', true)).resolves.toBeUndefined();
    await expect(assertPublicUrl('http://10.0.0.1/hook', true)).resolves.toBeUndefined();
    await expect(assertPublicUrl('not a url', true)).rejects.toMatchObject({ code: 'validation' });
  });
});
