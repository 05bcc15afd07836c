import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemError } from '../../src/errors.js';
import { VERSION } from '../../src/version.js';
import {
  backoffDelay,
  createWebhookTargetCheck,
  DEFAULT_WEBHOOK_POLICY,
  deliverWebhook,
  newWebhookSecret,
  parseRetryAfter,
  signPayload,
  validateWebhookUrl,
  verifySignature,
  type DeliveryAttempt,
  type WebhookPayload,
  type WebhookPolicy,
} from '../../src/ingest/webhooks.js';

const SECRET = 'whsec_test0123456789abcdefghijklmnopq';

const PAYLOAD: WebhookPayload = {
  event: 'ingest.completed',
  jobId: 'job_123',
  timestamp: '2025-01-02T03:04:05.000Z',
  results: { total: 3, successful: 2, failed: 1 },
  documents: ['mem_a', 'mem_b'],
  errors: [{ index: 2, error: 'item 2 has neither content nor url' }],
};

/** Fast policy: the injected sleep records waits instead of taking them. */
const FAST: WebhookPolicy = { ...DEFAULT_WEBHOOK_POLICY, maxAttempts: 4, timeoutMs: 5_000 };

interface Received {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

type Reply = (response: ServerResponse, request: IncomingMessage) => void;

/** A local receiver on 127.0.0.1: each path answers with a script of replies, one per request, the last repeating. */
interface Receiver {
  readonly origin: string;
  readonly received: Received[];
  script(path: string, replies: Reply[]): string;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripts = new Map<string, { replies: Reply[]; next: number }>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, method: request.method ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      const script = scripts.get(path);
      if (!script) {
        response.writeHead(404).end();
        return;
      }
      const reply = script.replies[Math.min(script.next, script.replies.length - 1)];
      script.next++;
      reply?.(response, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    script(path, replies) {
      scripts.set(path, { replies, next: 0 });
      return `${origin}${path}`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ok: Reply = (response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
const status =
  (code: number, headers: Record<string, string> = {}): Reply =>
  (response) =>
    response.writeHead(code, headers).end(`status ${code}`);
/** Cuts the connection without any response. */
const destroy: Reply = (_response, request) => request.socket.destroy();
/** Never answers. */
const hang: Reply = () => undefined;

/** An injected sleep that records the waits and returns at once. */
function recordingSleep(): ((ms: number) => Promise<void>) & { waits: number[] } {
  const waits: number[] = [];
  return Object.assign(async (ms: number) => void waits.push(ms), { waits });
}

let receiver: Receiver;
let counter = 0;
/** A fresh path per test so scripts never leak between tests. */
const path = (name: string): string => `/${name}-${++counter}`;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
});

describe('signatures', () => {
  const body = JSON.stringify(PAYLOAD);
  const timestamp = '1735787045';

  it('signs `${timestamp}.${body}` with HMAC-SHA256, hex', () => {
    const signature = signPayload(SECRET, timestamp, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    // Bytes or string, same signature.
    expect(signPayload(SECRET, timestamp, Buffer.from(body))).toBe(signature);
  });

  it('verifies with the secret, with or without the sha256= prefix', () => {
    const signature = signPayload(SECRET, timestamp, body);
    expect(verifySignature(SECRET, timestamp, body, `sha256=${signature}`)).toBe(true);
    expect(verifySignature(SECRET, timestamp, body, signature)).toBe(true);
  });

  it('fails with another secret, a changed body, a changed timestamp or a malformed header', () => {
    const signature = `sha256=${signPayload(SECRET, timestamp, body)}`;
    expect(verifySignature(newWebhookSecret(), timestamp, body, signature)).toBe(false);
    expect(verifySignature(SECRET, timestamp, body.replace('"failed":1', '"failed":0'), signature)).toBe(false);
    expect(verifySignature(SECRET, '1735787046', body, signature)).toBe(false);
    expect(verifySignature(SECRET, timestamp, body, 'sha256=abc')).toBe(false);
    expect(verifySignature(SECRET, timestamp, body, '')).toBe(false);
  });

  it('refuses timestamps outside the tolerance when one is given', () => {
    const signature = signPayload(SECRET, timestamp, body);
    const sent = Number(timestamp);
    expect(verifySignature(SECRET, timestamp, body, signature, { toleranceSeconds: 300, now: sent + 299 })).toBe(true);
    expect(verifySignature(SECRET, timestamp, body, signature, { toleranceSeconds: 300, now: sent + 301 })).toBe(false);
  });

  it('makes secrets of whsec_ and 32 base62 characters, all different', () => {
    const secrets = Array.from({ length: 50 }, () => newWebhookSecret());
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(new Set(secrets).size).toBe(50);
  });
});

describe('validateWebhookUrl', () => {
  it('accepts http and https URLs', () => {
    expect(() => validateWebhookUrl('http://127.0.0.1:9000/hook')).not.toThrow();
    expect(() => validateWebhookUrl('https://hooks.example.com/mem?x=1')).not.toThrow();
  });

  it.each([
    ['ftp://example.com/hook', 'scheme ftp: is not allowed (only http and https)'],
    ['file:///etc/passwd', 'scheme file: is not allowed'],
    ['http://user:pass@example.com/hook', 'credentials (user:password@) are not allowed'],
    ['http://token@example.com/hook', 'credentials'],
    ['not a url', 'is not an absolute URL'],
    ['/relative/hook', 'is not an absolute URL'],
    ['', 'it is empty'],
    [`https://example.com/${'a'.repeat(2100)}`, 'longer than 2048 characters'],
  ])('refuses %s', (url, message) => {
    let caught: unknown;
    try {
      validateWebhookUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MemError);
    expect((caught as MemError).code).toBe('VALIDATION_ERROR');
    expect((caught as MemError).message).toContain('invalid webhook URL');
    expect((caught as MemError).message).toContain(message);
  });

  it('judges IP-literal hosts by the network policy when asked', () => {
    expect(() => validateWebhookUrl('http://10.1.2.3/hook', { allowPrivateNetworks: false })).toThrow(/network\.allowPrivateNetworks/);
    expect(() => validateWebhookUrl('http://[fd00::1]/hook', { allowPrivateNetworks: false })).toThrow(/unique-local/);
    expect(() => validateWebhookUrl('http://10.1.2.3/hook', { allowPrivateNetworks: true })).not.toThrow();
    expect(() => validateWebhookUrl('http://127.0.0.1/hook', { allowPrivateNetworks: false })).not.toThrow();
    expect(() => validateWebhookUrl('http://0.0.0.0/hook', { allowPrivateNetworks: true })).toThrow(/never allowed/);
    // Without the option only the syntax is checked.
    expect(() => validateWebhookUrl('http://10.1.2.3/hook')).not.toThrow();
  });
});

describe('backoff', () => {
  it('doubles from the base, capped at maxDelayMs, within ±20%', () => {
    const policy = DEFAULT_WEBHOOK_POLICY;
    const middle = (): number => 0.5;
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, policy, middle))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    expect(backoffDelay(1, policy, () => 0)).toBe(800);
    expect(backoffDelay(1, policy, () => 0.999999)).toBe(1_200);
    expect(backoffDelay(7, policy, middle)).toBe(60_000);
    // Jitter never pushes past the cap.
    expect(backoffDelay(10, policy, () => 0.999999)).toBe(60_000);
    expect(backoffDelay(10, policy, () => 0)).toBe(48_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('1')).toBe(1_000);
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('deliverWebhook', () => {
  it('sends the payload with the documented headers and a signature that verifies', async () => {
    const url = receiver.script(path('ok'), [ok]);
    const seen: DeliveryAttempt[] = [];
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, onAttempt: (attempt) => void seen.push(attempt) });

    expect(result.delivered).toBe(true);
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({ attempt: 1, status: 200, error: null });
    expect(seen).toEqual(result.attempts);

    const request = receiver.received.find((entry) => url.endsWith(entry.path));
    expect(request?.method).toBe('POST');
    const headers = request?.headers ?? {};
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe(`mem/${VERSION}`);
    expect(headers['x-mem-event']).toBe('ingest.completed');
    expect(headers['x-mem-delivery']).toBe(result.deliveryId);
    expect(headers['x-mem-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(headers['x-mem-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const body = request?.body ?? Buffer.alloc(0);
    expect(JSON.parse(body.toString('utf8'))).toEqual(PAYLOAD);
    const signature = String(headers['x-mem-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(SECRET, String(headers['x-mem-timestamp']), body, signature, { toleranceSeconds: 300 })).toBe(true);
    expect(verifySignature('whsec_other', String(headers['x-mem-timestamp']), body, signature)).toBe(false);
  });

  it('retries a 500 and a cut connection, then delivers on the third attempt with the same body and delivery id', async () => {
    const url = receiver.script(path('flaky'), [status(500), destroy, ok]);
    const sleep = recordingSleep();
    const seen: DeliveryAttempt[] = [];
    const result = await deliverWebhook(url, PAYLOAD, {
      secret: SECRET,
      policy: FAST,
      sleep,
      random: () => 0.5,
      onAttempt: (attempt) => void seen.push(attempt),
    });

    expect(result.delivered).toBe(true);
    expect(result.attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
      [1, 500],
      [2, null],
      [3, 200],
    ]);
    expect(result.attempts[0]?.error).toBe('HTTP 500 Internal Server Error');
    expect(result.attempts[1]?.error).toBe('connection reset before a response');
    expect(result.attempts[2]?.error).toBeNull();
    expect(seen).toEqual(result.attempts);
    expect(sleep.waits).toEqual([1_000, 2_000]);

    const requests = receiver.received.filter((entry) => url.endsWith(entry.path));
    expect(requests).toHaveLength(3);
    const first = requests[0];
    for (const request of requests) {
      expect(request.body.equals(first?.body ?? Buffer.alloc(0))).toBe(true);
      expect(request.headers['x-mem-delivery']).toBe(result.deliveryId);
      const timestamp = String(request.headers['x-mem-timestamp']);
      expect(verifySignature(SECRET, timestamp, request.body, String(request.headers['x-mem-signature']))).toBe(true);
    }
  });

  it('does not retry a 404', async () => {
    const url = receiver.script(path('gone'), [status(404)]);
    const sleep = recordingSleep();
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, sleep });
    expect(result.delivered).toBe(false);
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({ status: 404, error: 'HTTP 404 Not Found' });
    expect(sleep.waits).toEqual([]);
    expect(receiver.received.filter((entry) => url.endsWith(entry.path))).toHaveLength(1);
  });

  it('retries 408 but not 400, 401, 403 or 410', async () => {
    for (const code of [400, 401, 403, 410]) {
      const url = receiver.script(path(`final-${code}`), [status(code)]);
      const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, sleep: recordingSleep() });
      expect(result.attempts.map((attempt) => attempt.status), String(code)).toEqual([code]);
    }
    const url = receiver.script(path('timeout-status'), [status(408), ok]);
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, sleep: recordingSleep() });
    expect(result.attempts.map((attempt) => attempt.status)).toEqual([408, 200]);
  });

  it('honours Retry-After on a 429, capped at maxDelayMs', async () => {
    const url = receiver.script(path('busy'), [status(429, { 'retry-after': '1' }), ok]);
    const sleep = recordingSleep();
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, sleep, random: () => 0 });
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
    expect(sleep.waits).toEqual([1_000]);

    const capped = receiver.script(path('very-busy'), [status(429, { 'retry-after': '3600' }), ok]);
    const longSleep = recordingSleep();
    await deliverWebhook(capped, PAYLOAD, { secret: SECRET, policy: { ...FAST, maxDelayMs: 5_000 }, sleep: longSleep });
    expect(longSleep.waits).toEqual([5_000]);
  });

  it('times out a receiver that never answers, then delivers', async () => {
    const url = receiver.script(path('slow'), [hang, ok]);
    const sleep = recordingSleep();
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: { ...FAST, timeoutMs: 200 }, sleep });
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((attempt) => [attempt.status, attempt.error])).toEqual([
      [null, 'timed out after 200 ms'],
      [200, null],
    ]);
    expect(result.attempts[0]?.durationMs).toBeGreaterThanOrEqual(150);
  });

  it('gives up after maxAttempts, waiting on the exponential schedule', async () => {
    const url = receiver.script(path('down'), [status(503)]);
    const sleep = recordingSleep();
    const seen: number[] = [];
    const result = await deliverWebhook(url, PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, maxAttempts: 5 },
      sleep,
      onAttempt: (attempt) => void seen.push(attempt.attempt),
    });
    expect(result.delivered).toBe(false);
    expect(result.attempts).toHaveLength(5);
    expect(result.attempts.every((attempt) => attempt.status === 503)).toBe(true);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    // One wait between attempts, none after the last: 1 s, 2 s, 4 s, 8 s, each ±20%.
    expect(sleep.waits).toHaveLength(4);
    sleep.waits.forEach((wait, index) => {
      const nominal = 1_000 * 2 ** index;
      expect(wait).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(wait).toBeLessThanOrEqual(nominal * 1.2);
    });
    expect(receiver.received.filter((entry) => url.endsWith(entry.path))).toHaveLength(5);
  });

  it('does not follow a redirect and does not retry it', async () => {
    const target = receiver.script(path('elsewhere'), [ok]);
    const url = receiver.script(path('moved'), [status(302, { location: target })]);
    const sleep = recordingSleep();
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, sleep });
    expect(result.delivered).toBe(false);
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]?.status).toBe(302);
    expect(result.attempts[0]?.error).toContain('redirects are not followed');
    expect(sleep.waits).toEqual([]);
    expect(receiver.received.filter((entry) => target.endsWith(entry.path))).toHaveLength(0);
  });

  it('refuses a private-network target without connecting, and does not retry', async () => {
    const fetchSpy = vi.fn<typeof fetch>();
    const sleep = recordingSleep();
    const seen: DeliveryAttempt[] = [];
    const result = await deliverWebhook('http://10.255.255.1/hook', PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, allowPrivateNetworks: false },
      sleep,
      fetch: fetchSpy,
      onAttempt: (attempt) => void seen.push(attempt),
    });
    expect(result.delivered).toBe(false);
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]?.status).toBeNull();
    expect(result.attempts[0]?.error).toContain('refused target 10.255.255.1');
    expect(result.attempts[0]?.error).toContain('network.allowPrivateNetworks');
    expect(seen).toEqual(result.attempts);
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(sleep.waits).toEqual([]);
  });

  it('lets the private target through when the policy allows it', async () => {
    const fetchSpy = vi.fn<typeof fetch>(async () => new Response('accepted', { status: 202 }));
    const result = await deliverWebhook('http://10.255.255.1/hook', PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, allowPrivateNetworks: true },
      fetch: fetchSpy,
    });
    expect(result.delivered).toBe(true);
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    const init = fetchSpy.mock.calls[0]?.[1];
    expect(init).toMatchObject({ method: 'POST', redirect: 'manual' });
  });

  it('checks the target again before every attempt (DNS may change)', async () => {
    // A host that resolves to loopback first, then to a private address.
    const answers = ['127.0.0.1', '10.0.0.7'];
    const lookups: string[] = [];
    const checkTarget = createWebhookTargetCheck({
      allowPrivateNetworks: false,
      lookup: async (hostname) => {
        lookups.push(hostname);
        const address = answers[Math.min(lookups.length, answers.length) - 1] ?? '';
        return [{ address, family: 4 }];
      },
    });
    const fetchSpy = vi.fn<typeof fetch>(async () => new Response('busy', { status: 503 }));
    const sleep = recordingSleep();
    const result = await deliverWebhook('http://hooks.test/hook', PAYLOAD, {
      secret: SECRET,
      policy: FAST,
      checkTarget,
      fetch: fetchSpy,
      sleep,
    });
    expect(lookups).toEqual(['hooks.test', 'hooks.test']);
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    expect(result.attempts.map((attempt) => attempt.status)).toEqual([503, null]);
    expect(result.attempts[1]?.error).toContain('refused target hooks.test (10.0.0.7)');
  });

  it('retries when the host does not resolve (DNS failures pass), but not a refused scheme', async () => {
    const checkTarget = createWebhookTargetCheck({
      allowPrivateNetworks: false,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const fetchSpy = vi.fn<typeof fetch>();
    const sleep = recordingSleep();
    const result = await deliverWebhook('http://nowhere.test/hook', PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, maxAttempts: 3 },
      checkTarget,
      fetch: fetchSpy,
      sleep,
    });
    expect(result.attempts).toHaveLength(3);
    expect(result.attempts[0]?.error).toContain('could not resolve host nowhere.test');
    expect(sleep.waits).toHaveLength(2);
    expect(fetchSpy).not.toHaveBeenCalled();

    const refused = await deliverWebhook('ftp://example.com/hook', PAYLOAD, { secret: SECRET, policy: FAST, fetch: fetchSpy, sleep: recordingSleep() });
    expect(refused.attempts).toHaveLength(1);
    expect(refused.attempts[0]?.error).toContain('unsupported URL scheme ftp:');
  });

  it('takes an injected target check that throws MemError', async () => {
    const fetchSpy = vi.fn<typeof fetch>();
    const checkTarget = vi.fn(async (url: string) => {
      throw new MemError('INVALID_URL', `no webhooks to ${url}`);
    });
    const result = await deliverWebhook('http://127.0.0.1:1/hook', PAYLOAD, { secret: SECRET, policy: FAST, checkTarget, fetch: fetchSpy });
    expect(checkTarget).toHaveBeenCalledWith('http://127.0.0.1:1/hook');
    expect(result.attempts).toEqual([expect.objectContaining({ status: null, error: 'no webhooks to http://127.0.0.1:1/hook' })]);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('waits for real between attempts with the default sleep', async () => {
    const url = receiver.script(path('real-wait'), [status(502), ok]);
    const result = await deliverWebhook(url, PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, baseDelayMs: 20 },
      random: () => 0,
    });
    expect(result.delivered).toBe(true);
    const [first, second] = result.attempts;
    // random 0 -> the lowest jitter: 16 ms. Timers may fire a millisecond early; Date.now() has 1 ms steps.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(14);
  });

  it('stops when the signal aborts during a wait, rejecting with its reason', async () => {
    const url = receiver.script(path('abort'), [status(500)]);
    const controller = new AbortController();
    const seen: DeliveryAttempt[] = [];
    const delivery = deliverWebhook(url, PAYLOAD, {
      secret: SECRET,
      policy: { ...FAST, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      signal: controller.signal,
      onAttempt: (attempt) => {
        seen.push(attempt);
        controller.abort(new Error('shutting down'));
      },
    });
    await expect(delivery).rejects.toThrow('shutting down');
    expect(seen).toHaveLength(1);
    expect(receiver.received.filter((entry) => url.endsWith(entry.path))).toHaveLength(1);
  });

  it('stops an attempt in flight when the signal aborts', async () => {
    const url = receiver.script(path('abort-in-flight'), [hang]);
    const controller = new AbortController();
    const seen: DeliveryAttempt[] = [];
    const delivery = deliverWebhook(url, PAYLOAD, {
      secret: SECRET,
      policy: FAST,
      signal: controller.signal,
      onAttempt: (attempt) => void seen.push(attempt),
    });
    // Abort once the receiver holds the request (observable state, with a deadline).
    const deadline = Date.now() + 5_000;
    while (!receiver.received.some((entry) => url.endsWith(entry.path))) {
      if (Date.now() > deadline) throw new Error('the receiver never got the request');
      await new Promise((resolve) => setImmediate(resolve));
    }
    controller.abort(new Error('shutting down'));
    await expect(delivery).rejects.toThrow('shutting down');
    expect(seen).toEqual([]);
  });

  it('keeps a given delivery id (a delivery resumed after a restart)', async () => {
    const url = receiver.script(path('resume'), [ok]);
    const result = await deliverWebhook(url, PAYLOAD, { secret: SECRET, policy: FAST, deliveryId: 'dlv_fixed' });
    expect(result.deliveryId).toBe('dlv_fixed');
    const request = receiver.received.find((entry) => url.endsWith(entry.path));
    expect(request?.headers['x-mem-delivery']).toBe('dlv_fixed');
  });
});
