import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { MemError } from '../errors.js';

/**
 * Which outbound targets the daemon may reach (URL saves now, webhooks later), so that a caller cannot use it
 * to probe the network it runs in. Only http(s) URLs without credentials; every address a host name resolves
 * to is classified, and one refused address refuses the target (an attacker controls their DNS answers).
 */

/** The configuration key that lets private-network targets through; error messages name it. */
export const PRIVATE_NETWORK_SETTING = 'network.allowPrivateNetworks';

/**
 * - public: the internet.
 * - loopback: 127.0.0.0/8, ::1. Allowed by default: the daemon and its tests live there.
 * - private: RFC 1918, CGNAT (100.64.0.0/10), link-local, unique-local (fc00::/7), site-local, the benchmark
 *   range 198.18.0.0/15, cloud metadata (169.254.169.254). Allowed only with network.allowPrivateNetworks.
 * - unroutable: unspecified (0.0.0.0, ::), multicast, broadcast, documentation and reserved ranges. Never.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'unroutable';

export interface AddressVerdict {
  readonly class: AddressClass;
  /** What the range is, for messages ("private (RFC 1918)", "cloud metadata"). */
  readonly label: string;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to all its addresses; injectable so tests can script DNS answers. */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface NetPolicyOptions {
  /** Let private, link-local, unique-local, CGNAT and metadata addresses through (`network.allowPrivateNetworks`). */
  readonly allowPrivateNetworks: boolean;
  /** Loopback targets; default true (the daemon, local tools and tests live on 127.0.0.1). */
  readonly allowLoopback?: boolean;
  /** DNS; default `dns.lookup` with `all: true` (the system resolver, as a connection would use). */
  readonly lookup?: HostLookup;
}

export type TargetRefusal = 'invalid-url' | 'scheme' | 'credentials' | 'refused-address' | 'unresolvable';

export type TargetVerdict =
  | { readonly allowed: true; readonly url: URL; readonly addresses: readonly string[] }
  | {
      readonly allowed: false;
      readonly reason: TargetRefusal;
      readonly message: string;
      /** The refused address and its range, when reason is refused-address. */
      readonly address?: string;
      readonly label?: string;
    };

interface Range {
  readonly subnet: string;
  readonly prefix: number;
  readonly class: AddressClass;
  readonly label: string;
}

// Most specific first: the first range that contains an address decides.
const IPV4_RANGES: readonly Range[] = [
  { subnet: '169.254.169.254', prefix: 32, class: 'private', label: 'cloud metadata' },
  { subnet: '255.255.255.255', prefix: 32, class: 'unroutable', label: 'broadcast' },
  { subnet: '0.0.0.0', prefix: 8, class: 'unroutable', label: 'unspecified ("this network")' },
  { subnet: '10.0.0.0', prefix: 8, class: 'private', label: 'private (RFC 1918)' },
  { subnet: '100.64.0.0', prefix: 10, class: 'private', label: 'carrier-grade NAT (CGNAT)' },
  { subnet: '127.0.0.0', prefix: 8, class: 'loopback', label: 'loopback' },
  { subnet: '169.254.0.0', prefix: 16, class: 'private', label: 'link-local' },
  { subnet: '172.16.0.0', prefix: 12, class: 'private', label: 'private (RFC 1918)' },
  { subnet: '192.0.0.0', prefix: 24, class: 'unroutable', label: 'IETF protocol assignments' },
  { subnet: '192.0.2.0', prefix: 24, class: 'unroutable', label: 'documentation (TEST-NET-1)' },
  { subnet: '192.88.99.0', prefix: 24, class: 'unroutable', label: 'deprecated 6to4 relay' },
  { subnet: '192.168.0.0', prefix: 16, class: 'private', label: 'private (RFC 1918)' },
  // Benchmarking, but also what fake-IP proxies (Clash, Surge) answer for every name: private, not unroutable.
  { subnet: '198.18.0.0', prefix: 15, class: 'private', label: 'benchmarking / fake-IP proxy' },
  { subnet: '198.51.100.0', prefix: 24, class: 'unroutable', label: 'documentation (TEST-NET-2)' },
  { subnet: '203.0.113.0', prefix: 24, class: 'unroutable', label: 'documentation (TEST-NET-3)' },
  { subnet: '224.0.0.0', prefix: 4, class: 'unroutable', label: 'multicast' },
  { subnet: '240.0.0.0', prefix: 4, class: 'unroutable', label: 'reserved' },
];

const IPV6_RANGES: readonly Range[] = [
  { subnet: '::', prefix: 128, class: 'unroutable', label: 'unspecified' },
  { subnet: '::1', prefix: 128, class: 'loopback', label: 'loopback' },
  { subnet: '100::', prefix: 64, class: 'unroutable', label: 'discard-only' },
  { subnet: '2001:db8::', prefix: 32, class: 'unroutable', label: 'documentation' },
  { subnet: 'fc00::', prefix: 7, class: 'private', label: 'unique-local' },
  { subnet: 'fe80::', prefix: 10, class: 'private', label: 'link-local' },
  { subnet: 'fec0::', prefix: 10, class: 'private', label: 'site-local' },
  { subnet: 'ff00::', prefix: 8, class: 'unroutable', label: 'multicast' },
  { subnet: '::', prefix: 96, class: 'unroutable', label: 'IPv4-compatible (deprecated)' },
];

// BlockList answers "is it in the set"; one list per range keeps the label of the range that matched.
const V4 = IPV4_RANGES.map((range) => ({ range, list: blockList(range, 'ipv4') }));
const V6 = IPV6_RANGES.map((range) => ({ range, list: blockList(range, 'ipv6') }));

function blockList(range: Range, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(range.subnet, range.prefix, family);
  return list;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach IPv4 hosts: IPv4-mapped (::ffff:a.b.c.d)
 * and NAT64 (64:ff9b::/96). Without this, [::ffff:10.0.0.1] would pass as a public IPv6 address.
 */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return null;
}

/** Classifies one IP address (v4 or v6, without brackets). Anything that is not an IP address is unroutable. */
export function classifyAddress(address: string): AddressVerdict {
  const family = isIP(address);
  if (family === 4) {
    const match = V4.find(({ list }) => list.check(address, 'ipv4'));
    return match ? { class: match.range.class, label: match.range.label } : { class: 'public', label: 'public' };
  }
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return classifyAddress(v4);
    const match = V6.find(({ list }) => list.check(address, 'ipv6'));
    return match ? { class: match.range.class, label: match.range.label } : { class: 'public', label: 'public' };
  }
  return { class: 'unroutable', label: 'not an IP address' };
}

/** Whether the policy lets a connection go to this address. */
export function isAllowedAddress(address: string, options: NetPolicyOptions): boolean {
  const verdict = classifyAddress(address).class;
  if (verdict === 'public') return true;
  if (verdict === 'loopback') return options.allowLoopback ?? true;
  if (verdict === 'private') return options.allowPrivateNetworks;
  return false;
}

/** The message for a refused address: which range, and which setting (if any) would allow it. */
export function refusedAddressMessage(host: string, address: string, options: NetPolicyOptions): string {
  const { class: kind, label } = classifyAddress(address);
  const target = host === address ? address : `${host} (${address})`;
  if (kind === 'private') {
    return `refused target ${target}: ${label} address; set ${PRIVATE_NETWORK_SETTING} to true to allow private-network targets`;
  }
  if (kind === 'loopback') return `refused target ${target}: loopback address, not allowed here`;
  return `refused target ${target}: ${label} address, never allowed`;
}

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** URL hosts keep IPv6 literals in brackets; sockets and BlockList want them bare. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Decides whether `target` may be fetched: http(s) only, no credentials, and every address the host resolves
 * to allowed. An IP literal is judged without DNS. Never connects; DNS failures come back as `unresolvable`.
 */
export async function checkTarget(target: string | URL, options: NetPolicyOptions): Promise<TargetVerdict> {
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return { allowed: false, reason: 'invalid-url', message: `not a valid URL: ${String(target)}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { allowed: false, reason: 'scheme', message: `unsupported URL scheme ${url.protocol} (only http and https)` };
  }
  if (url.username !== '' || url.password !== '') {
    return { allowed: false, reason: 'credentials', message: 'URLs with credentials (user:password@) are not allowed' };
  }
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await (options.lookup ?? systemLookup)(host)).map((entry) => entry.address);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { allowed: false, reason: 'unresolvable', message: `could not resolve host ${host}${typeof code === 'string' ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { allowed: false, reason: 'unresolvable', message: `could not resolve host ${host}` };
  }
  const refused = addresses.find((address) => !isAllowedAddress(address, options));
  if (refused !== undefined) {
    return {
      allowed: false,
      reason: 'refused-address',
      message: refusedAddressMessage(host, refused, options),
      address: refused,
      label: classifyAddress(refused).label,
    };
  }
  return { allowed: true, url, addresses };
}

/** `checkTarget` as a yes/no, for callers that only need the verdict. */
export async function isAllowedTarget(target: string | URL, options: NetPolicyOptions): Promise<boolean> {
  return (await checkTarget(target, options)).allowed;
}

/**
 * A `net.connect` lookup that resolves and checks in one step, so the address that was checked is the address
 * that is connected to. Checking before fetching alone leaves a window for DNS rebinding (a name that answers
 * a public address to the check and 10.0.0.1 to the connection). A refusal fails the connection with a
 * MemError (INVALID_URL) as its cause.
 */
export function createGuardedLookup(options: NetPolicyOptions): LookupFunction {
  const resolve = options.lookup ?? systemLookup;
  return (hostname, lookupOptions, callback) => {
    const family = typeof lookupOptions === 'object' ? lookupOptions.family : undefined;
    resolve(hostname)
      .then((entries) => {
        const wanted = family === 4 || family === 6 ? entries.filter((entry) => entry.family === family) : [...entries];
        const refused = wanted.find((entry) => !isAllowedAddress(entry.address, options));
        if (refused) {
          const error = new MemError('INVALID_URL', refusedAddressMessage(hostname, refused.address, options), {
            details: { reason: 'refused-target', host: hostname, address: refused.address },
          });
          callback(error, '', 0);
          return;
        }
        const first = wanted[0];
        if (!first) {
          callback(Object.assign(new Error(`could not resolve host ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (typeof lookupOptions === 'object' && lookupOptions.all) {
          (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted);
        } else {
          callback(null, first.address, first.family);
        }
      })
      .catch((error: unknown) => callback(error as NodeJS.ErrnoException, '', 0));
  };
}
