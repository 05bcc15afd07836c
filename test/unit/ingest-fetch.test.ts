import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemError } from '../../src/errors.js';
import { DEFAULT_FETCH_POLICY, fetchUrl, hasGuardedConnections, type FetchPolicy } from '../../src/ingest/fetch-url.js';
import { fixture, startFixtureServer, type FixtureServer } from '../fixtures/ingest/fixture-server.js';

const POLICY: FetchPolicy = { ...DEFAULT_FETCH_POLICY, timeoutMs: 5_000, maxBytes: 1024 * 1024, maxRedirects: 3 };

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
  // Loads Node's undici once (a data: URL fetch) so that the fetch spies below see only real requests.
  await hasGuardedConnections();
});

afterAll(async () => {
  await server.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The MemError a fetch rejects with (fails the test when it resolves or rejects with something else). */
async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => new Error('expected the fetch to fail'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof MemError)) throw error;
  return error;
}

describe('fetchUrl', () => {
  it('returns the body, status, content type and final URL', async () => {
    const result = await fetchUrl(`${server.origin}/plain.txt`, POLICY);
    expect(result).toMatchObject({
      finalUrl: `${server.origin}/plain.txt`,
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      redirects: [],
    });
    expect(result.body.equals(fixture('plain.txt'))).toBe(true);
  });

  it('sends the policy user agent', async () => {
    let agent: string | undefined;
    server.route('/whoami', (request, response) => {
      agent = request.headers['user-agent'];
      response.writeHead(200, { 'content-type': 'text/plain' }).end('hi');
    });
    await fetchUrl(`${server.origin}/whoami`, { ...POLICY, userAgent: 'mem-test/1' });
    expect(agent).toBe('mem-test/1');
  });

  it('follows redirects up to the limit, relative Locations included', async () => {
    const result = await fetchUrl(`${server.origin}/redirect/3`, POLICY);
    expect(result.finalUrl).toBe(`${server.origin}/plain.txt`);
    expect(result.redirects).toEqual([`${server.origin}/redirect/2`, `${server.origin}/redirect/1`, `${server.origin}/plain.txt`]);
    expect(result.body.toString()).toContain('Shopping list');
  });

  it('refuses one redirect more than the limit', async () => {
    const error = await failure(fetchUrl(`${server.origin}/redirect/4`, POLICY));
    expect(error.code).toBe('INVALID_URL');
    expect(error.message).toBe(`too many redirects fetching ${server.origin}/redirect/4 (more than 3)`);
    expect(error.details).toMatchObject({ reason: 'too-many-redirects', maxRedirects: 3 });
  });

  it('refuses a redirect to a private address before connecting to it', async () => {
    const spy = vi.spyOn(globalThis, 'fetch');
    const error = await failure(fetchUrl(`${server.origin}/private-redirect`, POLICY));
    expect(error.message).toContain('refused target 10.0.0.1');
    expect(error.message).toContain('network.allowPrivateNetworks');
    expect(error.details).toMatchObject({ reason: 'refused-target', url: 'http://10.0.0.1/admin' });
    expect(spy.mock.calls.map(([url]) => String(url))).toEqual([`${server.origin}/private-redirect`]);
  });

  it('says which status a non-2xx response had', async () => {
    const notFound = await failure(fetchUrl(`${server.origin}/missing`, POLICY));
    expect(notFound.message).toBe(`HTTP 404 from ${server.origin}/missing`);
    expect(notFound.details).toMatchObject({ reason: 'http-status', status: 404 });
    const broken = await failure(fetchUrl(`${server.origin}/broken`, POLICY));
    expect(broken.message).toBe(`HTTP 500 from ${server.origin}/broken`);
    const noLocation = await failure(fetchUrl(`${server.origin}/no-location`, POLICY));
    expect(noLocation.message).toBe(`HTTP 302 from ${server.origin}/no-location without a Location header`);
    const badLocation = await failure(fetchUrl(`${server.origin}/bad-location`, POLICY));
    expect(badLocation.message).toBe(`HTTP 302 from ${server.origin}/bad-location with an invalid Location: http://[oops/`);
  });

  it('gives up after timeoutMs on a server that never answers', async () => {
    const error = await failure(fetchUrl(`${server.origin}/hang`, { ...POLICY, timeoutMs: 150 }));
    expect(error.message).toBe(`fetching ${server.origin}/hang timed out after 150 ms`);
    expect(error.details).toMatchObject({ reason: 'timeout', timeoutMs: 150 });
  });

  it('stops reading a streamed body past maxBytes and hangs up', async () => {
    const error = await failure(fetchUrl(`${server.origin}/endless`, { ...POLICY, maxBytes: 64 * 1024 }));
    expect(error.message).toBe(`response from ${server.origin}/endless is too large (over 65536 bytes)`);
    expect(error.details).toMatchObject({ reason: 'too-large', maxBytes: 65536 });
    // The server sees the client hang up on a body that would otherwise never end.
    const sent = await server.endlessAbandoned;
    expect(sent).toBeGreaterThan(64 * 1024);
  });

  it('refuses a declared Content-Length over maxBytes without reading the body', async () => {
    const error = await failure(fetchUrl(`${server.origin}/declared-large`, { ...POLICY, maxBytes: 1000 }));
    expect(error.details).toMatchObject({ reason: 'too-large', maxBytes: 1000 });
  });

  it('says which host refused the connection', async () => {
    // A port that was free a moment ago: bind, read the port, close.
    const probe = await startFixtureServer();
    const origin = probe.origin;
    await probe.close();
    const error = await failure(fetchUrl(`${origin}/`, POLICY));
    expect(error.message).toBe(`fetch failed for ${origin}/: connection refused by ${origin.slice('http://'.length)}`);
    expect(error.details).toMatchObject({ reason: 'fetch-failed', code: 'ECONNREFUSED' });
  });

  it('says which host did not resolve', async () => {
    const lookup = async (): Promise<never> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await failure(fetchUrl('http://no-such-host.test/page', { ...POLICY, lookup }));
    expect(error.message).toBe('fetch failed for http://no-such-host.test/page: could not resolve host no-such-host.test (ENOTFOUND)');
  });

  it.each([
    ['http://user:pw@127.0.0.1/', 'URLs with credentials (user:password@) are not allowed'],
    ['file:///etc/passwd', 'unsupported URL scheme file: (only http and https)'],
    ['javascript:alert(1)', 'unsupported URL scheme javascript: (only http and https)'],
    ['not a url', 'not a valid URL: not a url'],
  ])('refuses %s before any request', async (url, message) => {
    const spy = vi.spyOn(globalThis, 'fetch');
    const error = await failure(fetchUrl(url, POLICY));
    expect(error.code).toBe('INVALID_URL');
    expect(error.message).toBe(message);
    expect(spy).not.toHaveBeenCalled();
  });

  it.each(['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/'])('refuses %s before any connection', async (url) => {
    const spy = vi.spyOn(globalThis, 'fetch');
    const error = await failure(fetchUrl(url, POLICY));
    expect(error.details).toMatchObject({ reason: 'refused-target' });
    expect(error.message).toMatch(/^refused target (10\.0\.0\.1|169\.254\.169\.254): /);
    expect(error.message).toContain('set network.allowPrivateNetworks to true');
    expect(spy).not.toHaveBeenCalled();
  });

  it('checks the address it connects to, so a name cannot rebind to a private address after the check', async () => {
    expect(await hasGuardedConnections()).toBe(true);
    // The first answer (the check) is loopback; the second (the connection) is a private address.
    let calls = 0;
    const lookup = async (): Promise<{ address: string; family: number }[]> => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const port = new URL(server.origin).port;
    const error = await failure(fetchUrl(`http://rebind.test:${port}/plain.txt`, { ...POLICY, lookup }));
    expect(error.message).toContain('refused target rebind.test (10.0.0.1)');
    expect(calls).toBe(2);
  });

  it('connects through the policy lookup to an allowed address', async () => {
    const lookup = async (): Promise<{ address: string; family: number }[]> => [{ address: '127.0.0.1', family: 4 }];
    const port = new URL(server.origin).port;
    const result = await fetchUrl(`http://fixtures.test:${port}/plain.txt`, { ...POLICY, lookup });
    expect(result.body.toString()).toContain('Shopping list');
  });

  it("rejects with the caller's abort reason, not INVALID_URL", async () => {
    const controller = new AbortController();
    const pending = fetchUrl(`${server.origin}/hang`, POLICY, { signal: controller.signal });
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
