import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGES } from '../../src/core/auth-service.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

const PROTECTED: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string }[] = [
  { method: 'POST', url: '/v1/save' },
  { method: 'GET', url: '/v1/save/status/pnd_x' },
  { method: 'POST', url: '/v1/search' },
  { method: 'GET', url: '/v1/memories' },
  { method: 'GET', url: '/v1/memory/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { method: 'PATCH', url: '/v1/memory/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { method: 'DELETE', url: '/v1/memory/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { method: 'POST', url: '/v1/memories/delete' },
  { method: 'GET', url: '/v1/status' },
  { method: 'POST', url: '/v1/reindex' },
  { method: 'GET', url: '/v1/jobs/job_x' },
  { method: 'GET', url: '/keys' },
  { method: 'POST', url: '/keys' },
  { method: 'POST', url: '/keys/key_x/regenerate' },
  { method: 'DELETE', url: '/keys/key_x' },
];

describe('authentication', () => {
  it('refuses every /v1 and /keys route without a key, with a wrong key, and with a malformed header', async () => {
    for (const route of PROTECTED) {
      const missing = await t.app.inject({ ...route, payload: {} });
      expect(missing.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(missing.json()).toEqual({ success: false, error: 'UNAUTHORIZED', message: AUTH_MESSAGES.missing, hint: AUTH_MESSAGES.missingHint });
      const invalid = await t.app.inject({ ...route, payload: {}, headers: { authorization: 'Bearer svc_live_nope' } });
      expect(invalid.json()).toEqual({ success: false, error: 'UNAUTHORIZED', message: AUTH_MESSAGES.invalid });
      const basic = await t.app.inject({ ...route, payload: {}, headers: { authorization: `Basic ${t.key}` } });
      expect(basic.statusCode).toBe(401);
    }
    expect(AUTH_MESSAGES.missing).toMatch(/Authorization header/);
  });

  it('leaves /health and /openapi.json open', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok', version: expect.any(String) });
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
  });

  it('creates keys of both types, lists them redacted, and the new key works', async () => {
    const created = await t.request({ method: 'POST', url: '/keys', payload: { name: 'laptop', type: 'test', rateLimitPerHour: 500 } });
    expect(created.statusCode).toBe(201);
    const data = created.json().data;
    expect(data).toMatchObject({ name: 'laptop', type: 'test', rateLimitPerHour: 500, monthlyLimit: null, readOnly: false, expiresAt: null });
    expect(data.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(t.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);

    const list = await t.request({ method: 'GET', url: '/keys' });
    const keys = list.json().keys as { id: string; key: string }[];
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) expect(key.key).toMatch(/^svc_(live|test)_\.\.\.[0-9A-Za-z]{4}$/);
    expect(list.body).not.toContain(data.key);
    expect(list.body).not.toContain(t.key);

    const withNew = await t.app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${data.key}` } });
    expect(withNew.statusCode).toBe(200);
  });

  it('regenerate: the old value fails at once, the new one works, settings are kept', async () => {
    const created = (await t.request({ method: 'POST', url: '/keys', payload: { name: 'rotating', monthlyLimit: 1000 } })).json().data;
    const use = (key: string) => t.app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${key}` } });
    expect((await use(created.key)).statusCode).toBe(200); // now cached as authenticated
    const regenerated = await t.request({ method: 'POST', url: `/keys/${created.id}/regenerate` });
    expect(regenerated.statusCode).toBe(200);
    const fresh = regenerated.json().data;
    expect(fresh).toMatchObject({ id: created.id, name: 'rotating', monthlyLimit: 1000 });
    expect(fresh.key).not.toBe(created.key);
    const old = await use(created.key);
    expect(old.statusCode).toBe(401);
    expect(old.json().message).toBe(AUTH_MESSAGES.invalid);
    expect((await use(fresh.key)).statusCode).toBe(200);
  });

  it('delete is permanent and the key stops working', async () => {
    const created = (await t.request({ method: 'POST', url: '/keys', payload: { name: 'temp' } })).json().data;
    const deleted = await t.request({ method: 'DELETE', url: `/keys/${created.id}` });
    expect(deleted.json()).toEqual({ success: true, message: expect.any(String) });
    const use = await t.app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${created.key}` } });
    expect(use.statusCode).toBe(401);
    const again = await t.request({ method: 'DELETE', url: `/keys/${created.id}` });
    expect(again.statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: `/keys/${created.id}/regenerate` })).statusCode).toBe(404);
  });

  it('expired keys get 401 "API key has expired"', async () => {
    const created = (await t.request({ method: 'POST', url: '/keys', payload: { name: 'short', expiresAt: new Date(Date.now() + 60_000).toISOString() } })).json().data;
    const key = await t.deps.storage.keys.get(t.deps.ownerId, created.id);
    if (!key) throw new Error('key missing');
    await t.deps.storage.keys.replace({ ...key, expiresAt: Date.now() - 1000 });
    const response = await t.app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${created.key}` } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'UNAUTHORIZED', message: AUTH_MESSAGES.expired });
  });

  it('read-only keys can read but get 403 FORBIDDEN on writes', async () => {
    const created = (await t.request({ method: 'POST', url: '/keys', payload: { name: 'reader', readOnly: true } })).json().data;
    const headers = { authorization: `Bearer ${created.key}` };
    expect((await t.app.inject({ method: 'GET', url: '/v1/memories', headers })).statusCode).toBe(200);
    const write = await t.app.inject({ method: 'POST', url: '/v1/save', headers, payload: { content: 'nope' } });
    expect(write.statusCode).toBe(403);
    expect(write.json().error).toBe('FORBIDDEN');
  });

  it('validates key creation', async () => {
    for (const payload of [{}, { name: '' }, { name: 'x', type: 'gold' }, { name: 'x', rateLimitPerHour: -5 }, { name: 'x', expiresAt: '2001-01-01' }, { name: 'x', expiresAt: 'soon' }]) {
      const response = await t.request({ method: 'POST', url: '/keys', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toBe('VALIDATION_ERROR');
    }
  });
});
