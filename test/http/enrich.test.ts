import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

const TEXT = 'Priya Raman is the CTO of Initech. She met Tom Becker from Stripe in Lisbon.';

async function entityNames(): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: '/v1/entities?limit=100' });
  return (response.json().entities as { name: string }[]).map((entity) => entity.name);
}

describe('enriching turbo memories', () => {
  it('a turbo save extracts nothing; enrich runs the extraction and makes the memory standard', async () => {
    const saved = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: TEXT } });
    expect(saved.statusCode, saved.body).toBeLessThan(300);
    const id = saved.json().documentId as string;
    expect(await entityNames()).not.toContain('Priya Raman');
    const noStatus = await t.request({ method: 'GET', url: `/v1/extract/${id}` });
    expect(noStatus.statusCode).toBe(404);

    const enriched = await t.request({ method: 'POST', url: `/v1/memory/${id}/enrich` });
    expect(enriched.statusCode, enriched.body).toBe(200);
    expect(enriched.json()).toMatchObject({ success: true, memoryId: id, status: 'completed', entities: expect.any(Number) });
    expect(enriched.json().entities).toBeGreaterThan(0);
    expect(await entityNames()).toContain('Priya Raman');

    // Standard now: a content update re-extracts, replacing what the old text produced.
    await t.request({ method: 'PATCH', url: `/v1/memory/${id}`, payload: { content: 'Lunch with Maria Lopez at Globex in Madrid.' } });
    const names = await entityNames();
    expect(names).not.toContain('Priya Raman');
    expect(names).toContain('Maria Lopez');
  });

  it('POST /v1/enrich {allTurbo:true} enriches every turbo memory once', async () => {
    for (const content of ['Kenji Sato joined Umbrella Corp in Osaka.', 'Lena Fischer works at Hooli in Berlin.']) {
      await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content } });
    }
    const first = await t.request({ method: 'POST', url: '/v1/enrich', payload: { allTurbo: true } });
    expect(first.json()).toMatchObject({ success: true, enriched: 2 });
    expect(await entityNames()).toEqual(expect.arrayContaining(['Kenji Sato', 'Lena Fischer']));
    const second = await t.request({ method: 'POST', url: '/v1/enrich', payload: { allTurbo: true } });
    expect(second.json()).toMatchObject({ enriched: 0, memoryIds: [] });
  });

  it('gives the usual errors', async () => {
    expect((await t.request({ method: 'POST', url: '/v1/memory/nope/enrich' })).json().error).toBe('VALIDATION_ERROR');
    const unknown = await t.request({ method: 'POST', url: '/v1/memory/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV/enrich' });
    expect(unknown.statusCode).toBe(404);
    const bad = await t.request({ method: 'POST', url: '/v1/enrich', payload: { allTurbo: false } });
    expect(bad.statusCode).toBe(400);
  });
});
