import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Two accounts on one daemon: for every endpoint, neither can read, search, ask about, graph, count, aggregate,
 * update or delete the other's data. Account A is the owner; B is a user the owner created.
 */
describe('two-account isolation on every endpoint', () => {
  let t: TestApp;
  let bKey: string;
  let aMemory: string;
  let aKeyId: string;
  const asA = (options: InjectOptions) => t.request(options);
  const asB = (options: InjectOptions) =>
    t.app.inject({ ...options, headers: { authorization: `Bearer ${bKey}`, ...(options.headers ?? {}) } });
  const body = async (options: InjectOptions) => {
    const response = await asB(options);
    return { status: response.statusCode, json: response.json() as Record<string, any> };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const created = await asA({ method: 'POST', url: '/admin/users', payload: { email: 'b@example.org', name: 'B', tier: 'enterprise' } });
    bKey = (created.json() as { key: { key: string } }).key.key;
    const saved = await asA({
      method: 'POST',
      url: '/v1/save',
      payload: {
        content: 'Zephyrine Okonkwo, CEO of Quillfeather Labs, met us in Reykjavik to plan the Tidewater launch.',
        tags: ['secret-a'],
        spaceId: 'space-a',
        metadata: { project: 'tidewater' },
      },
    });
    aMemory = (saved.json() as { documentId: string }).documentId;
    await asA({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'Turbo note: Quillfeather budget is 4 million.' } });
    aKeyId = ((await asA({ method: 'GET', url: '/keys' })).json() as { keys: { id: string }[] }).keys[0]?.id ?? '';
    await asB({ method: 'POST', url: '/v1/save', payload: { content: 'B writes about gardening and tomatoes.' } });
    // Wait until A's extraction has finished, so that an empty graph for B means isolation, not timing.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const status = (await asA({ method: 'GET', url: `/v1/extract/${aMemory}` })).json() as { status: string };
      if (status.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const entities = (await asA({ method: 'GET', url: '/v1/entities' })).json() as { entities: unknown[] };
    expect(entities.entities.length).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await t.close();
    await closeTestEmbedder();
  });

  it('reads: get, list, save status, extraction status', async () => {
    expect((await body({ method: 'GET', url: `/v1/memory/${aMemory}` })).status).toBe(404);
    const list = await body({ method: 'GET', url: '/v1/memories?limit=100' });
    expect(list.json.data.map((m: { id: string }) => m.id)).not.toContain(aMemory);
    expect(list.json.pagination.total).toBe(1);
    expect((await body({ method: 'GET', url: '/v1/memories?tags=secret-a' })).json.pagination.total).toBe(0);
    expect((await body({ method: 'GET', url: `/v1/extract/${aMemory}` })).status).toBe(404);
  });

  it('search, query (with aggregations), ask, remind, turbo ask', async () => {
    const search = await body({ method: 'POST', url: '/v1/search', payload: { query: 'Quillfeather Labs CEO Reykjavik', threshold: 0 } });
    expect(search.json.results.map((r: { id: string }) => r.id)).not.toContain(aMemory);
    const hybrid = await body({ method: 'POST', url: '/v1/search', payload: { query: 'Tidewater', hybrid: true, threshold: 0 } });
    expect(hybrid.json.results.every((r: { content: string }) => !r.content.includes('Tidewater'))).toBe(true);

    const query = await body({
      method: 'POST',
      url: '/v1/query',
      payload: { filters: { tags: { $in: ['secret-a'] } }, aggregate: { countByTag: true } },
    });
    expect(query.status).toBe(200);
    expect(query.json.results).toEqual([]);
    expect(query.json.pagination.total).toBe(0);
    const all = await body({
      method: 'POST',
      url: '/v1/query',
      payload: { aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'day' } } },
    });
    expect(JSON.stringify(all.json)).not.toContain('secret-a');
    expect(all.json.pagination.total).toBe(1);

    const ask = await body({ method: 'POST', url: '/v1/ask', payload: { query: 'Who is the CEO of Quillfeather Labs?' } });
    expect(JSON.stringify(ask.json)).not.toMatch(/Zephyrine|Quillfeather budget/);
    const remind = await body({ method: 'POST', url: '/v1/remind', payload: { context: 'Planning the Tidewater launch with Quillfeather', threshold: 0 } });
    expect(remind.json.reminders.map((r: { id: string }) => r.id)).not.toContain(aMemory);
    const turbo = await body({ method: 'POST', url: '/v1/turbo/ask', payload: { query: 'What is the Quillfeather budget?' } });
    expect(turbo.json.answer).not.toMatch(/4 million/);
  });

  it('knowledge: entities, facts, graph', async () => {
    const entities = await body({ method: 'GET', url: '/v1/entities?limit=200' });
    expect(JSON.stringify(entities.json)).not.toMatch(/Zephyrine|Quillfeather|Reykjavik/);
    const search = await body({ method: 'GET', url: '/v1/entities?search=quill' });
    expect(search.json.entities).toEqual([]);
    const facts = await body({ method: 'GET', url: '/v1/facts?limit=200' });
    expect(JSON.stringify(facts.json)).not.toMatch(/Zephyrine|Quillfeather/);
    const graph = await body({ method: 'GET', url: '/v1/graph?depth=3&limit=200' });
    expect(JSON.stringify(graph.json)).not.toMatch(/Zephyrine|Quillfeather/);
  });

  it('writes: update, delete, bulk delete, enrich of the other account give not-found and change nothing', async () => {
    const patch = await body({ method: 'PATCH', url: `/v1/memory/${aMemory}`, payload: { title: 'hijacked' } });
    expect(patch.status).toBe(404);
    expect((await body({ method: 'DELETE', url: `/v1/memory/${aMemory}` })).status).toBe(404);
    const bulk = await body({ method: 'POST', url: '/v1/memories/delete', payload: { ids: [aMemory] } });
    expect(bulk.json.deleted).toBe(0);
    expect((await body({ method: 'POST', url: `/v1/memory/${aMemory}/enrich` })).status).toBe(404);
    const enrichAll = await body({ method: 'POST', url: '/v1/enrich', payload: { allTurbo: true } });
    expect(enrichAll.json.enriched).toBe(0);
    const stillThere = await asA({ method: 'GET', url: `/v1/memory/${aMemory}` });
    expect(stillThere.statusCode).toBe(200);
    expect((stillThere.json() as { data: { title: string } }).data.title).not.toBe('hijacked');
  });

  it("keys, jobs, usage and profile are the account's own", async () => {
    expect((await body({ method: 'POST', url: `/keys/${aKeyId}/regenerate` })).status).toBe(404);
    expect((await body({ method: 'DELETE', url: `/keys/${aKeyId}` })).status).toBe(404);
    const keys = await body({ method: 'GET', url: '/keys' });
    expect(keys.json.keys.map((k: { id: string }) => k.id)).not.toContain(aKeyId);
    const job = (await asA({ method: 'POST', url: '/v1/reindex', payload: {} })).json() as { jobId: string };
    expect((await body({ method: 'GET', url: `/v1/jobs/${job.jobId}` })).status).toBe(404);
    const ingest = (await asA({ method: 'POST', url: '/v1/ingest', payload: { items: [{ content: 'Owner-only ingest note.' }] } })).json() as { jobId: string };
    expect((await body({ method: 'GET', url: `/v1/ingest/status/${ingest.jobId}` })).status).toBe(404);
    const jobs = await body({ method: 'GET', url: '/v1/jobs' });
    expect(jobs.json.jobs.map((j: { jobId: string }) => j.jobId)).not.toContain(ingest.jobId);
    expect((await body({ method: 'GET', url: '/v1/watches' })).json.watches).toEqual([]);
    const usage = await body({ method: 'GET', url: '/v1/usage?breakdown=endpoint' });
    expect(usage.json.usage.storage.memoryCount).toBe(1);
    expect(usage.json.usage.byEndpoint.some((row: { endpoint: string }) => row.endpoint === '/v1/turbo/save')).toBe(false);
    const profile = await body({ method: 'GET', url: '/v1/profile' });
    expect(profile.json.profile.email).toBe('b@example.org');
    expect(profile.json.profile.currentUsage.memoryCount).toBe(1);
  });
});
