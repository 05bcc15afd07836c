import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  classifyAddress,
  createGuardedLookup,
  isAllowedTarget,
  PRIVATE_NETWORK_SETTING,
  type HostLookup,
} from '../../src/ingest/net-policy.js';
import { MemError } from '../../src/errors.js';

const DEFAULT = { allowPrivateNetworks: false } as const;
const PRIVATE_OK = { allowPrivateNetworks: true } as const;

/** Scripted DNS: each name answers the addresses given, in order of calls when several lists are given. */
function dns(answers: Record<string, string[] | string[][]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const entry = answers[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const seen = calls.filter((name) => name === hostname).length;
    const list = Array.isArray(entry[0]) ? ((entry as string[][])[Math.min(seen, entry.length) - 1] ?? []) : (entry as string[]);
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.1.1', 'private'],
    ['169.254.169.254', 'private'],
    ['198.18.0.1', 'private'],
    ['fd00::1', 'private'],
    ['fe80::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unroutable'],
    ['::', 'unroutable'],
    ['224.0.0.1', 'unroutable'],
    ['255.255.255.255', 'unroutable'],
    ['240.0.0.1', 'unroutable'],
    ['192.0.2.10', 'unroutable'],
    ['ff02::1', 'unroutable'],
    ['not-an-ip', 'unroutable'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address).class).toBe(expected);
  });

  it('labels the metadata address and the ranges it names in messages', () => {
    expect(classifyAddress('169.254.169.254').label).toBe('cloud metadata');
    expect(classifyAddress('100.100.1.1').label).toMatch(/CGNAT/);
    expect(classifyAddress('fd12::1').label).toBe('unique-local');
    expect(classifyAddress('172.15.0.1').class).toBe('public');
    expect(classifyAddress('172.32.0.1').class).toBe('public');
  });
});

describe('checkTarget', () => {
  it('allows loopback by default and public hosts, with their addresses', async () => {
    const lookup = dns({ 'example.org': ['93.184.216.34'] });
    await expect(checkTarget('http://127.0.0.1:8080/x', DEFAULT)).resolves.toMatchObject({ allowed: true, addresses: ['127.0.0.1'] });
    await expect(checkTarget('http://[::1]/', DEFAULT)).resolves.toMatchObject({ allowed: true, addresses: ['::1'] });
    await expect(checkTarget('https://example.org/a', { ...DEFAULT, lookup })).resolves.toMatchObject({
      allowed: true,
      addresses: ['93.184.216.34'],
    });
    await expect(checkTarget('http://127.0.0.1/', { ...DEFAULT, allowLoopback: false })).resolves.toMatchObject({ allowed: false });
  });

  it.each(['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://192.168.0.10/', 'http://[fd00::5]/', 'http://100.64.1.1/'])(
    'refuses %s without DNS and names the setting that allows it',
    async (url) => {
      const lookup = dns({});
      const verdict = await checkTarget(url, { ...DEFAULT, lookup });
      expect(verdict).toMatchObject({ allowed: false, reason: 'refused-address' });
      if (!verdict.allowed) expect(verdict.message).toContain(`set ${PRIVATE_NETWORK_SETTING} to true`);
      expect(lookup.calls).toEqual([]);
    },
  );

  it('allows private targets when allowPrivateNetworks is true, but never unroutable ones', async () => {
    expect(await isAllowedTarget('http://10.0.0.1/', PRIVATE_OK)).toBe(true);
    expect(await isAllowedTarget('http://169.254.169.254/', PRIVATE_OK)).toBe(true);
    expect(await isAllowedTarget('http://[fe80::1]/', PRIVATE_OK)).toBe(true);
    expect(await isAllowedTarget('http://10.0.0.1/', DEFAULT)).toBe(false);
    expect(await isAllowedTarget('http://0.0.0.0/', PRIVATE_OK)).toBe(false);
    expect(await isAllowedTarget('http://224.0.0.1/', PRIVATE_OK)).toBe(false);
  });

  it('reads the numeric forms the URL parser normalises (0x0a.1, 167772161) as the address they are', async () => {
    expect(await isAllowedTarget('http://0x0a.1/', DEFAULT)).toBe(false);
    expect(await isAllowedTarget('http://167772161/', DEFAULT)).toBe(false);
    expect(await isAllowedTarget('http://[::ffff:169.254.169.254]/', DEFAULT)).toBe(false);
  });

  it('refuses a host name when any of its addresses is refused', async () => {
    const lookup = dns({ 'mixed.test': ['93.184.216.34', '10.1.2.3'], 'internal.test': ['192.168.1.20'] });
    const mixed = await checkTarget('http://mixed.test/', { ...DEFAULT, lookup });
    expect(mixed).toMatchObject({ allowed: false, reason: 'refused-address', address: '10.1.2.3' });
    if (!mixed.allowed) expect(mixed.message).toContain('mixed.test (10.1.2.3)');
    expect(await isAllowedTarget('http://internal.test/', { ...DEFAULT, lookup })).toBe(false);
    expect(await isAllowedTarget('http://internal.test/', { ...PRIVATE_OK, lookup })).toBe(true);
  });

  it('refuses other schemes, credentials, invalid URLs, and says when a host does not resolve', async () => {
    await expect(checkTarget('ftp://127.0.0.1/file', DEFAULT)).resolves.toMatchObject({ allowed: false, reason: 'scheme' });
    await expect(checkTarget('file:///etc/passwd', DEFAULT)).resolves.toMatchObject({ allowed: false, reason: 'scheme' });
    await expect(checkTarget('http://user:secret@127.0.0.1/', DEFAULT)).resolves.toMatchObject({ allowed: false, reason: 'credentials' });
    await expect(checkTarget('http://user@127.0.0.1/', DEFAULT)).resolves.toMatchObject({ allowed: false, reason: 'credentials' });
    await expect(checkTarget('not a url', DEFAULT)).resolves.toMatchObject({ allowed: false, reason: 'invalid-url' });
    const verdict = await checkTarget('http://nowhere.test/', { ...DEFAULT, lookup: dns({}) });
    expect(verdict).toMatchObject({ allowed: false, reason: 'unresolvable' });
    if (!verdict.allowed) expect(verdict.message).toBe('could not resolve host nowhere.test (ENOTFOUND)');
  });
});

describe('createGuardedLookup', () => {
  function run(lookup: ReturnType<typeof createGuardedLookup>, host: string, all: boolean): Promise<unknown> {
    return new Promise((resolve, reject) => {
      lookup(host, { all }, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
        error ? reject(error) : resolve(all ? address : { address, family }),
      );
    });
  }

  it('answers allowed addresses in both callback forms', async () => {
    const lookup = createGuardedLookup({ ...DEFAULT, lookup: dns({ 'ok.test': ['127.0.0.1', '::1'] }) });
    await expect(run(lookup, 'ok.test', true)).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(run(lookup, 'ok.test', false)).resolves.toEqual({ address: '127.0.0.1', family: 4 });
  });

  it('fails the connection with INVALID_URL when the name now points at a private address', async () => {
    const lookup = createGuardedLookup({ ...DEFAULT, lookup: dns({ 'rebind.test': ['10.0.0.1'] }) });
    const error = await run(lookup, 'rebind.test', true).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).code).toBe('INVALID_URL');
    expect((error as MemError).message).toContain('rebind.test (10.0.0.1)');
  });
});
