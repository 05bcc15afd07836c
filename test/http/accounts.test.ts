import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS, type PlanTable } from '../../src/core/accounts/plans.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';

/** Small plans so that tests reach every limit in a few requests. */
const SMALL: PlanTable = {
  ...PLANS,
  free: { ...PLANS.free, requestsPerHour: 6, monthlyRequests: 1000, maxMemories: 3, maxStorageMb: 1 },
  pro: { ...PLANS.pro, requestsPerHour: 1000, monthlyRequests: 1000 },
};

const json = (response: LightMyRequestResponse) => response.json() as Record<string, any>;

describe('accounts: users, plans, rate limits, usage and profile', () => {
  let t: TestApp;
  const as = (key: string, options: InjectOptions) =>
    t.app.inject({ ...options, headers: { authorization: `Bearer ${key}`, ...(options.headers ?? {}) } });

  async function createUser(email: string, tier: 'free' | 'pro' | 'enterprise'): Promise<{ id: string; key: string }> {
    const response = await t.request({ method: 'POST', url: '/admin/users', payload: { email, name: email.split('@')[0], tier } });
    expect(response.statusCode, response.body).toBe(201);
    const body = json(response);
    return { id: body.data.id, key: body.key.key };
  }

  beforeAll(async () => {
    t = await createTestApp({ plans: SMALL });
  });
  afterAll(async () => {
    await t.close();
    await closeTestEmbedder();
  });

  it('every authenticated response carries the rate-limit headers; unlimited plans show -1', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/memories' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('-1');
    expect(response.headers['x-ratelimit-remaining']).toBe('-1');
    expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const notFound = await t.request({ method: 'GET', url: '/v1/memory/mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-ratelimit-limit']).toBe('-1');
  });

  it('the owner manages users; other accounts get 403', async () => {
    const ana = await createUser('ana@example.org', 'pro');
    expect(ana.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    const list = json(await t.request({ method: 'GET', url: '/admin/users' }));
    expect(list.users.map((user: { email: string }) => user.email)).toContain('ana@example.org');
    const owner = list.users.find((user: { isOwner: boolean }) => user.isOwner);
    expect(owner.tier).toBe('enterprise');

    for (const request of [
      { method: 'GET', url: '/admin/users' },
      { method: 'POST', url: '/admin/users', payload: { email: 'x@example.org', name: 'X' } },
      { method: 'PATCH', url: `/admin/users/${ana.id}`, payload: { tier: 'enterprise' } },
      { method: 'DELETE', url: `/admin/users/${owner.id}` },
    ] as const) {
      const response = await as(ana.key, request);
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(403);
      expect(json(response).error).toBe('FORBIDDEN');
    }

    const duplicate = await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'ANA@example.org', name: 'Ana' } });
    expect(duplicate.statusCode).toBe(400);
    const badTier = await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'b@example.org', name: 'B', tier: 'gold' } });
    expect(json(badTier).error).toBe('VALIDATION_ERROR');
    const ownerTier = await t.request({ method: 'PATCH', url: `/admin/users/${owner.id}`, payload: { tier: 'free' } });
    expect(ownerTier.statusCode).toBe(400);

    const upgraded = await t.request({ method: 'PATCH', url: `/admin/users/${ana.id}`, payload: { tier: 'enterprise' } });
    expect(json(upgraded).data.tier).toBe('enterprise');
    // The cached key context sees the new plan at once.
    expect(json(await as(ana.key, { method: 'GET', url: '/v1/profile' })).profile.tier).toBe('enterprise');
  });

  it('removing a user deletes their keys and data', async () => {
    const bob = await createUser('bob@example.org', 'pro');
    const saved = await as(bob.key, { method: 'POST', url: '/v1/save', payload: { content: 'Bob keeps a note about sailing in Kiel.' } });
    expect(saved.statusCode).toBe(201);
    const removed = await t.request({ method: 'DELETE', url: `/admin/users/${bob.id}` });
    expect(removed.statusCode).toBe(200);
    expect((await as(bob.key, { method: 'GET', url: '/v1/memories' })).statusCode).toBe(401);
    expect(await t.deps.storage.memories(bob.id).count()).toBe(0);
    expect((await t.request({ method: 'DELETE', url: `/admin/users/${bob.id}` })).statusCode).toBe(404);
  });

  it('refuses requests over the plan limit exactly, even when they arrive in parallel', async () => {
    const free = await createUser('free@example.org', 'free');
    // 10 requests at once against a limit of 6: exactly 6 pass.
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => as(free.key, { method: 'GET', url: '/v1/memories' })),
    );
    const passed = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(passed).toHaveLength(6);
    expect(refused).toHaveLength(4);
    const body = json(refused[0] as LightMyRequestResponse);
    expect(body).toMatchObject({ success: false, error: 'RATE_LIMITED', message: 'Rate limit exceeded' });
    expect(body.retryAfter).toBeGreaterThan(0);
    expect(body.retryAfter).toBeLessThanOrEqual(3600);
    expect(body.usage).toEqual({ requestsThisHour: 6, limit: 6 });
    expect(refused[0]?.headers['retry-after']).toBe(String(body.retryAfter));
    expect(refused[0]?.headers['x-ratelimit-remaining']).toBe('0');
    const remaining = passed.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("a key's own lower limits override the plan's", async () => {
    const pro = await createUser('pro@example.org', 'pro');
    const created = json(
      await as(pro.key, { method: 'POST', url: '/keys', payload: { name: 'tight', rateLimitPerHour: 2 } }),
    );
    const tight = created.data.key as string;
    expect((await as(tight, { method: 'GET', url: '/v1/memories' })).headers['x-ratelimit-limit']).toBe('2');
    expect((await as(tight, { method: 'GET', url: '/v1/memories' })).statusCode).toBe(200);
    const third = await as(tight, { method: 'GET', url: '/v1/memories' });
    expect(third.statusCode).toBe(429);
    expect(json(third).usage.limit).toBe(2);
    // The account's other key is not held back by this key's limit.
    expect((await as(pro.key, { method: 'GET', url: '/v1/memories' })).statusCode).toBe(200);

    const monthly = json(await as(pro.key, { method: 'POST', url: '/keys', payload: { name: 'monthly', monthlyLimit: 1 } }));
    expect((await as(monthly.data.key, { method: 'GET', url: '/v1/memories' })).statusCode).toBe(200);
    const over = await as(monthly.data.key, { method: 'GET', url: '/v1/memories' });
    expect(over.statusCode).toBe(429);
    expect(json(over).usage).toMatchObject({ limit: 1, window: 'month' });
  });

  it('refuses writes past the memory-count and storage limits and changes nothing', async () => {
    const small = await createUser('small@example.org', 'free');
    for (let i = 0; i < 3; i++) {
      const saved = await as(small.key, { method: 'POST', url: '/v1/save', payload: { content: `Note number ${i} about tides.` } });
      expect(saved.statusCode).toBe(201);
    }
    const fourth = await as(small.key, { method: 'POST', url: '/v1/save', payload: { content: 'One note too many.' } });
    expect(fourth.statusCode).toBe(413);
    expect(json(fourth).error).toBe('LIMIT_EXCEEDED');
    expect(json(fourth).message).toMatch(/Memory limit reached/);
    const turbo = await as(small.key, { method: 'POST', url: '/v1/turbo/save', payload: { content: 'Turbo one too many.' } });
    expect(turbo.statusCode).toBe(413);
    expect(await t.deps.storage.memories(small.id).count()).toBe(3);
  });

  it('test keys are a sandbox: live and test data never mix', async () => {
    const testKey = json(await t.request({ method: 'POST', url: '/keys', payload: { name: 'sandbox', type: 'test' } })).data.key as string;
    expect(testKey).toMatch(/^svc_test_/);
    const saved = json(
      await as(testKey, { method: 'POST', url: '/v1/save', payload: { content: 'Sandbox note: the staging password rotates on Fridays.' } }),
    );
    const id = saved.documentId as string;
    expect((await as(testKey, { method: 'GET', url: `/v1/memory/${id}` })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `/v1/memory/${id}` })).statusCode).toBe(404);
    const liveList = json(await t.request({ method: 'GET', url: '/v1/memories?limit=100' }));
    expect(liveList.data.map((m: { id: string }) => m.id)).not.toContain(id);
    const liveSearch = json(await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'staging password rotates', threshold: 0 } }));
    expect(liveSearch.results.map((r: { id: string }) => r.id)).not.toContain(id);
    const testSearch = json(await as(testKey, { method: 'POST', url: '/v1/search', payload: { query: 'staging password rotates', threshold: 0 } }));
    expect(testSearch.results.map((r: { id: string }) => r.id)).toContain(id);
    // Usage reports the modes apart.
    const testUsage = json(await as(testKey, { method: 'GET', url: '/v1/usage?breakdown=key' })).usage;
    expect(testUsage.mode).toBe('test');
    expect(testUsage.byKey.every((row: { type: string }) => row.type === 'test')).toBe(true);
    const liveUsage = json(await t.request({ method: 'GET', url: '/v1/usage?breakdown=key' })).usage;
    expect(liveUsage.mode).toBe('live');
    expect(liveUsage.byKey.every((row: { type: string }) => row.type === 'live')).toBe(true);
  });

  it('usage statistics are real time, with endpoint, day and key breakdowns', async () => {
    const user = await createUser('stats@example.org', 'pro');
    const before = json(await as(user.key, { method: 'GET', url: '/v1/usage' })).usage;
    // The usage call itself is recorded before the next one.
    expect(before.summary.totalRequests).toBe(0);
    await as(user.key, { method: 'POST', url: '/v1/save', payload: { content: 'Usage is counted per request.' } });
    await as(user.key, { method: 'GET', url: '/v1/memory/mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G' });
    const usage = json(await as(user.key, { method: 'GET', url: '/v1/usage?period=day&breakdown=endpoint' })).usage;
    expect(usage.summary).toMatchObject({ totalRequests: 3, successfulRequests: 2, failedRequests: 1 });
    expect(usage.summary.averageLatencyMs).toBeGreaterThan(0);
    const save = usage.byEndpoint.find((row: { endpoint: string }) => row.endpoint === '/v1/save');
    expect(save).toMatchObject({ method: 'POST', requests: 1 });
    expect(usage.byEndpoint.find((row: { endpoint: string }) => row.endpoint === '/v1/memory/:id')).toBeTruthy();
    expect(usage.byEndpoint.reduce((sum: number, row: { percentage: number }) => sum + row.percentage, 0)).toBeCloseTo(100, 0);
    expect(usage.storage.memoryCount).toBe(1);
    expect(usage.limits).toMatchObject({ requestsPerHour: 1000, monthlyRequests: 1000 });
    expect(usage.limits.usedPercentage).toBeCloseTo(0.4, 5);

    const daily = json(await as(user.key, { method: 'GET', url: '/v1/usage?period=week&breakdown=day' })).usage.daily;
    expect(daily).toHaveLength(7);
    // usage, save, get (404), usage: the call being answered is recorded after it.
    expect(daily.at(-1).requests).toBe(4);
    expect(daily.at(-1).failed).toBe(1);
    const byKey = json(await as(user.key, { method: 'GET', url: '/v1/usage?breakdown=key' })).usage.byKey;
    expect(byKey).toEqual([expect.objectContaining({ name: 'default', type: 'live', requests: 5, failed: 1 })]);

    for (const url of ['/v1/usage?period=year', '/v1/usage?breakdown=hour']) {
      const bad = await as(user.key, { method: 'GET', url });
      expect(bad.statusCode).toBe(400);
      expect(json(bad).error).toBe('VALIDATION_ERROR');
    }
  });

  it('profile: every spec field, consistent with usage; PATCH validates and defaultSpace applies to saves', async () => {
    const user = await createUser('carla@example.org', 'pro');
    const profile = json(await as(user.key, { method: 'GET', url: '/v1/profile' })).profile;
    expect(Object.keys(profile).sort()).toEqual(
      ['company', 'createdAt', 'currentUsage', 'email', 'id', 'limits', 'name', 'settings', 'tier'].sort(),
    );
    expect(profile.tier).toBe('pro');
    expect(profile.limits).toEqual({
      requestsPerHour: 1000,
      monthlyRequests: 1000,
      maxStorageMb: 10240,
      maxMemories: 100_000,
      ingestItemsPerRequest: 1000,
      concurrentJobs: 5,
    });
    expect(profile.settings).toEqual({ defaultSpace: '', timezone: 'UTC', language: 'en' });
    expect(profile.currentUsage.monthlyRequests).toBe(1);

    const badZone = await as(user.key, { method: 'PATCH', url: '/v1/profile', payload: { settings: { timezone: 'Mars/Olympus' } } });
    expect(badZone.statusCode).toBe(400);
    expect(json(badZone).error).toBe('VALIDATION_ERROR');
    const unknown = await as(user.key, { method: 'PATCH', url: '/v1/profile', payload: { tier: 'enterprise' } });
    expect(unknown.statusCode).toBe(400);

    const patched = json(
      await as(user.key, {
        method: 'PATCH',
        url: '/v1/profile',
        payload: { company: 'Acme', settings: { timezone: 'Europe/Berlin', defaultSpace: 'work' } },
      }),
    ).profile;
    expect(patched.company).toBe('Acme');
    expect(patched.settings).toEqual({ defaultSpace: 'work', timezone: 'Europe/Berlin', language: 'en' });
    const saved = json(await as(user.key, { method: 'POST', url: '/v1/save', payload: { content: 'Goes to the default space.' } }));
    expect(json(await as(user.key, { method: 'GET', url: `/v1/memory/${saved.documentId}` })).data.spaceId).toBe('work');
    const usage = json(await as(user.key, { method: 'GET', url: '/v1/usage' })).usage;
    const again = json(await as(user.key, { method: 'GET', url: '/v1/profile' })).profile;
    expect(again.currentUsage.memoryCount).toBe(usage.storage.memoryCount);
  });
});

describe('limits and usage survive a restart', () => {
  it('keeps counting where it stopped', async () => {
    const home = tempHome();
    const first = await createTestApp({ home, keepHome: true, plans: SMALL });
    const created = json(await first.request({ method: 'POST', url: '/admin/users', payload: { email: 'r@example.org', name: 'R', tier: 'free' } }));
    const key = created.key.key as string;
    const call = (app: TestApp) => app.app.inject({ method: 'GET', url: '/v1/memories', headers: { authorization: `Bearer ${key}` } });
    for (let i = 0; i < 4; i++) expect((await call(first)).statusCode).toBe(200);
    await first.close();

    const second = await createTestApp({ home, plans: SMALL });
    try {
      const fifth = await call(second);
      expect(fifth.headers['x-ratelimit-remaining']).toBe('1');
      expect((await call(second)).statusCode).toBe(200);
      expect((await call(second)).statusCode).toBe(429);
      const usage = json(await second.app.inject({ method: 'GET', url: '/v1/usage', headers: { authorization: `Bearer ${key}` } }));
      // Refused: the usage call itself is over the limit, but the statistics were kept (owner view below).
      expect(usage.error).toBe('RATE_LIMITED');
      const owner = await second.request({ method: 'GET', url: '/v1/usage' });
      expect(owner.statusCode).toBe(200);
      const events = await second.deps.storage.usage.events(created.data.id, { since: 0, until: Date.now() + 1 });
      await second.deps.recorder.flush();
      const all = await second.deps.storage.usage.events(created.data.id, { since: 0, until: Date.now() + 1 });
      expect(all.length).toBeGreaterThanOrEqual(events.length);
      expect(all.filter((event) => event.status === 200)).toHaveLength(6);
      expect(all.filter((event) => event.status === 429)).toHaveLength(2);
    } finally {
      await second.close();
      await closeTestEmbedder();
    }
  });
});
