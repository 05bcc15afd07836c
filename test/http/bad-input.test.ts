import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../daemon/app.js';
import { ERROR_TABLE, isErrorCode } from '../../src/errors.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

const MEMORY = 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const BODY_ROUTES: { method: 'POST' | 'PATCH'; url: string }[] = [
  { method: 'POST', url: '/v1/save' },
  { method: 'POST', url: '/v1/search' },
  { method: 'PATCH', url: `/v1/memory/${MEMORY}` },
  { method: 'POST', url: '/v1/memories/delete' },
  { method: 'POST', url: '/keys' },
  { method: 'POST', url: '/v1/reindex' },
];

function expectEnvelope(response: { statusCode: number; json(): unknown }, code: keyof typeof ERROR_TABLE) {
  const body = response.json() as Record<string, unknown>;
  expect(body.success).toBe(false);
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(response.statusCode).toBe(ERROR_TABLE[code].status);
}

describe('every route answers bad input with the error envelope', () => {
  it('malformed JSON', async () => {
    for (const route of BODY_ROUTES) {
      const response = await t.request({ ...route, payload: '{"query": ', headers: { 'content-type': 'application/json' } });
      expectEnvelope(response, 'VALIDATION_ERROR');
    }
  });

  it('bodies of the wrong JSON type', async () => {
    for (const route of BODY_ROUTES.filter((r) => r.url !== '/v1/reindex')) {
      for (const payload of ['[]', '"text"', '42', 'null']) {
        const response = await t.request({ ...route, payload, headers: { 'content-type': 'application/json' } });
        expect(response.statusCode, `${route.url} ${payload}`).toBe(400);
        expectEnvelope(response, 'VALIDATION_ERROR');
      }
    }
  });

  it('a content type other than JSON', async () => {
    for (const route of BODY_ROUTES) {
      const response = await t.request({ ...route, payload: 'content=hello', headers: { 'content-type': 'text/plain' } });
      expectEnvelope(response, 'VALIDATION_ERROR');
    }
  });

  it('oversize bodies', async () => {
    for (const route of BODY_ROUTES) {
      const response = await t.request({ ...route, payload: JSON.stringify({ content: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } });
      expectEnvelope(response, 'CONTENT_TOO_LARGE');
    }
  });

  it('unknown routes and methods', async () => {
    for (const [method, url] of [
      ['GET', '/v1/nothing'],
      ['POST', '/v1/memories'],
      ['PUT', `/v1/memory/${MEMORY}`],
      ['GET', '/v2/search'],
      ['GET', '/'],
    ] as const) {
      const response = await t.request({ method, url });
      expectEnvelope(response, 'NOT_FOUND');
    }
  });

  it('internal errors are 500 INTERNAL_ERROR without internals, and nothing stored is lost', async () => {
    await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'survivor note' } });
    const broken = {
      ...t.deps,
      memories: Object.assign(Object.create(Object.getPrototypeOf(t.deps.memories) as object) as typeof t.deps.memories, t.deps.memories, {
        list: () => Promise.reject(new Error('secret internal detail at /var/lib/x')),
      }),
    };
    const app = await buildApp(broken);
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${t.key}` } });
      expectEnvelope(response, 'INTERNAL_ERROR');
      expect(response.body).not.toContain('secret');
      expect(response.body).not.toContain('/var/lib');
    } finally {
      await app.close();
    }
    const list = await t.request({ method: 'GET', url: '/v1/memories' });
    expect(list.json().data.map((memory: { content: string }) => memory.content)).toContain('survivor note');
  });

  it('every error code in the table has a status and exit code, and statuses are HTTP errors', () => {
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(isErrorCode(code)).toBe(true);
      expect(row.status).toBeGreaterThanOrEqual(400);
      expect(row.exitCode).toBeGreaterThan(0);
    }
    const exitCodes = Object.values(ERROR_TABLE).map((row) => row.exitCode);
    expect(new Set(exitCodes).size).toBe(exitCodes.length);
  });
});

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and covers every route', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toMatch(/^3\.1/);
    const paths = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const route of [
      'POST /v1/save',
      'GET /v1/save/status/{pendingId}',
      'POST /v1/search',
      'GET /v1/memories',
      'GET /v1/memory/{id}',
      'PATCH /v1/memory/{id}',
      'DELETE /v1/memory/{id}',
      'POST /v1/memories/delete',
      'GET /keys',
      'POST /keys',
      'POST /keys/{id}/regenerate',
      'DELETE /keys/{id}',
      'GET /health',
      'GET /v1/status',
      'POST /v1/reindex',
      'GET /v1/jobs/{jobId}',
    ]) {
      expect(paths).toContain(route);
    }
    const search = document.paths['/v1/search'].post;
    expect(search.requestBody.content['application/json'].schema.properties.threshold).toMatchObject({ minimum: 0, maximum: 1, default: 0.5 });
  });
});
