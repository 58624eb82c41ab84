import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
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

/**
 * What a non-public range is called in error messages, by ipaddr.js's `range()` name. Only `unicast`
 * (ipaddr.js's name for an address in no special range) is public; any special range it knows and
 * this table does not name is refused as `reserved` (documentation, benchmarking, AS112, ORCHID, …).
 */
const KIND: Record<string, string> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  broadcast: 'reserved',
  reserved: 'reserved',
  deprecatedSiteLocal: 'site-local',
  teredo: 'Teredo',
  rfc6145: 'IPv4-translated',
};

// NAT64 local-use prefix (RFC 8215): a private translator, unlike the well-known 64:ff9b::/96 (both
// are ipaddr.js's `rfc6052`).
const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];
// IPv4-compatible IPv6 (deprecated by RFC 4291), which ipaddr.js leaves as `unicast`: never a receiver.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

const WELL_KNOWN_NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

/**
 * The IPv4 address an IPv6 one carries where a connection to it reaches that IPv4 host: IPv4-mapped
 * (::ffff:0:0/96), the well-known NAT64 prefix (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (ip.match(WELL_KNOWN_NAT64)) return v4(p[6]!, p[7]!);
  if (ip.range() === '6to4') return v4(p[1]!, p[2]!);
  return undefined;
}

/** The kind of non-public address (`loopback`, `private`, …), or undefined for a public one. */
export function nonPublicKind(address: string): string | undefined {
  if (!isIP(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.match(NAT64_LOCAL)) return 'NAT64 local-use';
    ip = embeddedIpv4(v6) ?? v6;
  }
  const range = ip.range();
  if (range !== 'unicast') return KIND[range] ?? 'reserved';
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return 'reserved';
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
