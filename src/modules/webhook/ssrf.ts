import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError, unavailable, validation } from '../../errors.ts';

/**
 * SSRF guard for webhook targets (D9). A target is vetted by resolving its host ourselves and checking
 * every address; the request then connects to the vetted address (see sender.ts), so a DNS answer that
 * changes between the check and the connection (rebinding) cannot redirect it.
 */

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to all its addresses (default: the OS resolver, as every client would). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** Address ranges a webhook may never reach in production, by the name used in error messages. */
const RANGES: [name: string, cidrs: string[]][] = [
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['carrier-grade NAT', ['100.64.0.0/10']],
  // Cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 100.100.100.200) sit in the ranges above;
  // these are the rest of the special-purpose space that is never a public receiver.
  [
    'reserved',
    ['192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4'],
  ],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['100::/64', '2001:db8::/32', '::/96']],
];

const LISTS = RANGES.map(([name, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net = '', bits] = cidr.split('/');
    list.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
  }
  return [name, list] as const;
});

/** IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  const parts = hex ?? sixToFour;
  if (!parts) return undefined;
  const hi = Number.parseInt(parts[1] ?? '0', 16);
  const lo = Number.parseInt(parts[2] ?? '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The kind of non-public address (`loopback`, `private`, …), or undefined for a public one. */
export function nonPublicKind(address: string): string | undefined {
  const v4 = embeddedIpv4(address);
  const ip = v4 ?? address;
  const family = isIP(ip);
  if (!family) return 'invalid';
  for (const [name, list] of LISTS) if (list.check(ip, family === 6 ? 'ipv6' : 'ipv4')) return name;
  return undefined;
}

/** A target that may never be contacted: not retried. */
export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
}

/**
 * Resolves a target URL and vets every address. Returns the address to connect to. Throws
 * TargetRefused for a bad URL or a non-public address (unless `allowPrivate`), and the resolver's
 * own error when the name does not resolve (a transient failure, retried like a refused connection).
 */
export async function resolveTarget(
  url: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<ResolvedAddress & { url: URL }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetRefused(`target URL is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TargetRefused(`target URL must be http or https, not ${parsed.protocol.replace(':', '')}`);
  }
  if (parsed.username || parsed.password) throw new TargetRefused('target URL must not carry credentials');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  const addresses: ResolvedAddress[] = family
    ? [{ address: host, family: family === 6 ? 6 : 4 }]
    : await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const kind = nonPublicKind(a.address);
      if (kind) throw new TargetRefused(`refused: ${host} resolves to a ${kind} address (${a.address})`);
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family, url: parsed };
}

/**
 * Create-time check for other modules (`callback_url`, merchant `webhook_url`): throws `validation`
 * when the URL is malformed or its host resolves to a non-public address, `unavailable` when DNS cannot
 * answer right now. Allowed unconditionally when `allowPrivate` (embedded stack, tests) and the URL is
 * well formed. Send time checks again regardless.
 */
export async function assertPublicUrl(
  url: string,
  allowPrivate: boolean,
  field = 'callback_url',
  resolve: Resolver = systemResolver,
): Promise<void> {
  try {
    await resolveTarget(
      url,
      allowPrivate,
      allowPrivate ? async () => [{ address: '0.0.0.0', family: 4 }] : resolve,
    );
  } catch (error) {
    if (error instanceof TargetRefused)
      throw validation(`${field}: ${error.message.replace(/^refused: /, '')}`);
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw validation(`${field}: host does not resolve`);
    if (error instanceof AppError) throw error;
    throw unavailable(`${field}: host could not be resolved right now`, error);
  }
}
