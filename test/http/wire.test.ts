import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/api/limits.js';
import { AUTH_MESSAGES } from '../../src/core/auth-service.js';
import { ERROR_TABLE, type ErrorCode } from '../../src/errors.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The deviations a client written from SPEC.md found, each checked twice: through app.inject and through a
 * real socket (Node's fetch against the listening app), since a dropped connection only shows on a socket.
 */

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

type Send = (method: string, url: string, options?: { headers?: Record<string, string>; body?: string | undefined }) => Promise<Answer>;

const JSON_HEADER = { 'content-type': 'application/json' };

/** Both transports with the same signature; neither adds any header of its own. */
const transports: Record<'inject' | 'socket', Send> = {
  async inject(method, url, options = {}) {
    const response = await t.app.inject({
      method: method as 'GET',
      url,
      headers: options.headers ?? {},
      ...(options.body !== undefined ? { payload: options.body } : {}),
    });
    return { status: response.statusCode, body: response.json(), headers: response.headers as Record<string, string> };
  },
  async socket(method, url, options = {}) {
    const response = await fetch(base + url, { method, headers: options.headers ?? {}, ...(options.body !== undefined ? { body: options.body } : {}) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: Object.fromEntries(response.headers) };
  },
};

const bearer = (key: string) => ({ ...JSON_HEADER, authorization: `Bearer ${key}` });
const xApiKey = (key: string) => ({ ...JSON_HEADER, 'x-api-key': key });

function expectEnvelope(answer: Answer, code: ErrorCode): void {
  expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: false, error: code, message: expect.any(String) });
  expect(answer.status).toBe(ERROR_TABLE[code].status);
}

async function savedId(send: Send): Promise<string> {
  const saved = await send('POST', '/v1/turbo/save', { headers: bearer(t.key), body: JSON.stringify({ content: 'A memory to delete over the wire.' }) });
  expect(saved.status).toBe(201);
  return saved.body.documentId as string;
}

describe.each(['inject', 'socket'] as const)('the wire contract through %s', (transport) => {
  const send = (...args: Parameters<Send>) => transports[transport](...args);

  it('accepts Content-Type: application/json with an empty body on GET, DELETE and body-less POST routes', async () => {
    const id = await savedId(send);
    const reads = ['/v1/memories', `/v1/memory/${id}`, '/keys', '/v1/status', '/v1/profile', '/v1/entities', '/v1/watches', '/v1/jobs'];
    for (const url of reads) {
      const answer = await send('GET', url, { headers: bearer(t.key) });
      expect(answer.status, `GET ${url}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    const deleted = await send('DELETE', `/v1/memory/${id}`, { headers: bearer(t.key), body: '' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await send('GET', `/v1/memory/${id}`, { headers: bearer(t.key) })).status).toBe(404);

    const created = await send('POST', '/keys', { headers: bearer(t.key), body: JSON.stringify({ name: `wire-${transport}` }) });
    expect(created.status).toBe(201);
    const keyId = (created.body.data as { id: string }).id;
    const regenerated = await send('POST', `/keys/${keyId}/regenerate`, { headers: bearer(t.key) });
    expect(regenerated.status, JSON.stringify(regenerated.body)).toBe(200);
    const removed = await send('DELETE', `/keys/${keyId}`, { headers: bearer(t.key) });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);

    // Body-less POSTs whose schema has defaults take the empty body as {}.
    expect((await send('POST', '/v1/extract/retry', { headers: bearer(t.key) })).status).toBe(200);
  });

  it('still refuses an empty body where the route needs one, with VALIDATION_ERROR', async () => {
    for (const url of ['/v1/save', '/v1/search', '/v1/turbo/save', '/keys', '/v1/memories/delete']) {
      expectEnvelope(await send('POST', url, { headers: bearer(t.key), body: '' }), 'VALIDATION_ERROR');
    }
  });

  it('answers created asynchronous work with 201, never 202', async () => {
    const save = await send('POST', '/v1/save', { headers: bearer(t.key), body: JSON.stringify({ content: 'Saved later, answered now.', async: true }) });
    expect(save.status).toBe(201);
    expect(save.body).toMatchObject({ success: true, pendingId: expect.stringMatching(/^pnd_/), statusUrl: expect.stringMatching(/^\/v1\/save\/status\//) });
    const ingest = await send('POST', '/v1/ingest', { headers: bearer(t.key), body: JSON.stringify({ items: [{ content: 'One ingested note.' }] }) });
    expect(ingest.status).toBe(201);
    expect(ingest.body).toMatchObject({ success: true, jobId: expect.stringMatching(/^job_/), itemCount: 1 });
    const reindex = await send('POST', '/v1/reindex', { headers: bearer(t.key) });
    expect(reindex.status).toBe(201);
    const sync = await send('POST', '/v1/ingest', { headers: bearer(t.key), body: JSON.stringify({ async: false, items: [{ content: 'Now.' }] }) });
    expect(sync.status).toBe(200);
    await t.deps.ingest.onIdle();
  });

  it('accepts X-API-Key with the same checks as Bearer', async () => {
    expect((await send('GET', '/v1/memories', { headers: xApiKey(t.key) })).status).toBe(200);
    expect((await send('GET', '/v1/memories', { headers: { ...bearer(t.key), 'x-api-key': t.key } })).status).toBe(200);

    const invalid = await send('GET', '/v1/memories', { headers: xApiKey('svc_live_nope') });
    expectEnvelope(invalid, 'UNAUTHORIZED');
    expect(invalid.body.message).toBe(AUTH_MESSAGES.invalid);

    const other = (await t.deps.auth.createKey(t.deps.ownerId, { name: `other-${transport}`, type: 'live' })).value;
    const both = await send('GET', '/v1/memories', { headers: { ...bearer(t.key), 'x-api-key': other } });
    expectEnvelope(both, 'UNAUTHORIZED');
    expect(both.body.message).toBe(AUTH_MESSAGES.conflicting);

    const expired = await t.deps.auth.createKey(t.deps.ownerId, { name: 'expired', type: 'live', expiresAt: Date.now() - 1000 });
    const late = await send('GET', '/v1/memories', { headers: xApiKey(expired.value) });
    expectEnvelope(late, 'UNAUTHORIZED');
    expect(late.body.message).toBe(AUTH_MESSAGES.expired);

    const reader = await t.deps.auth.createKey(t.deps.ownerId, { name: 'reader', type: 'live', readOnly: true });
    expect((await send('GET', '/v1/memories', { headers: xApiKey(reader.value) })).status).toBe(200);
    expectEnvelope(await send('POST', '/v1/turbo/save', { headers: xApiKey(reader.value), body: '{"content":"no"}' }), 'FORBIDDEN');

    const regenerated = await t.deps.auth.createKey(t.deps.ownerId, { name: 'rotated', type: 'live' });
    await t.deps.auth.regenerate(t.deps.ownerId, regenerated.record.id);
    expectEnvelope(await send('GET', '/v1/memories', { headers: xApiKey(regenerated.value) }), 'UNAUTHORIZED');

    const limited = await t.deps.auth.createKey(t.deps.ownerId, { name: 'limited', type: 'live', rateLimitPerHour: 1 });
    const first = await send('GET', '/v1/memories', { headers: xApiKey(limited.value) });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('1');
    const second = await send('GET', '/v1/memories', { headers: xApiKey(limited.value) });
    expectEnvelope(second, 'RATE_LIMITED');
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with VALIDATION_ERROR, not a 500`, async () => {
    const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const metadata = `{"content":"deep","metadata":{"a":${deep(10_000)}}}`;
    expectEnvelope(await send('POST', '/v1/save', { headers: bearer(t.key), body: metadata }), 'VALIDATION_ERROR');
    expectEnvelope(await send('POST', '/v1/query', { headers: bearer(t.key), body: `{"filters":{"$and":${deep(5000)}}}` }), 'VALIDATION_ERROR');
    // Brackets inside strings are text, not nesting.
    const text = await send('POST', '/v1/turbo/save', { headers: bearer(t.key), body: JSON.stringify({ content: '[{'.repeat(5000) }) });
    expect(text.status).toBe(201);
    // Just inside the limit is fine.
    const nested = JSON.parse(`{"content":"ok","metadata":{"a":${deep(MAX_JSON_DEPTH - 2)}}}`) as unknown;
    expect((await send('POST', '/v1/turbo/save', { headers: bearer(t.key), body: JSON.stringify(nested) })).status).toBe(201);
  });

  it('answers a path segment that is not UTF-8 with the envelope and VALIDATION_ERROR', async () => {
    const bad = '%ED%A0%80';
    const routes: [string, string][] = [
      ['GET', `/v1/memory/${bad}`],
      ['DELETE', `/v1/memory/${bad}`],
      ['GET', `/v1/save/status/${bad}`],
      ['GET', `/v1/ingest/status/${bad}`],
      ['POST', `/keys/${bad}/regenerate`],
      ['GET', `/v1/memories?tags=${bad}`],
    ];
    for (const [method, url] of routes) {
      const answer = await send(method, url, { headers: bearer(t.key) });
      if (url.includes('?')) expect(answer.status, url).toBe(200);
      else expectEnvelope(answer, 'VALIDATION_ERROR');
    }
  });

  it('answers oversized bodies with a readable CONTENT_TOO_LARGE on every kind of route', async () => {
    const tenMb = 'x'.repeat(10 * 1024 * 1024);
    const bodies: [string, string][] = [
      ['/v1/turbo/save', JSON.stringify({ content: tenMb })],
      ['/keys', JSON.stringify({ name: tenMb })],
      ['/v1/query', JSON.stringify({ offset: 'x'.repeat(1024 * 1024) })],
      ['/v1/save', JSON.stringify({ content: tenMb })],
      ['/v1/search', JSON.stringify({ query: tenMb })],
    ];
    // Several at once: the dropped connections depended on timing.
    const answers = await Promise.all([...bodies, ...bodies].map(([url, body]) => send('POST', url, { headers: bearer(t.key), body })));
    for (const answer of answers) expectEnvelope(answer, 'CONTENT_TOO_LARGE');
    // And the daemon answers the next request.
    expect((await send('GET', '/v1/memories', { headers: bearer(t.key) })).status).toBe(200);
  });
});
