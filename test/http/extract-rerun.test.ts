import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Extractor } from '../../src/providers/spec.js';
import type { EntitiesResponse, ExtractRerunResponse, StatusResponse } from '../../src/api/contract.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/** `POST /v1/extract/rerun` (`mem extract --rerun`): extraction again, after switching models. */
let t: TestApp;
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  for (const content of [
    'Sarah Chen is the CFO of Acme Corp.',
    'Tom Baker joined Globex in March 2024.',
    'Lunch with Priya at the harbour on Friday.',
  ]) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content } });
    expect(response.statusCode, response.body).toBe(201);
    ids.push(response.json<{ documentId: string }>().documentId);
  }
  await t.deps.knowledge.idle();
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

const rerun = async (payload: Record<string, unknown>) => {
  const response = await t.request({ method: 'POST', url: '/v1/extract/rerun', payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ExtractRerunResponse>();
};
const entityNames = async () =>
  (await t.request({ method: 'GET', url: '/v1/entities?limit=100' })).json<EntitiesResponse>().entities.map((entity) => entity.name).sort();
const status = (id: string) => t.deps.knowledge.extractionStatus(t.deps.ownerId, id);

describe('extracting again with the current model', () => {
  it('takes only the memories another model extracted, and their knowledge becomes what the current model finds', async () => {
    expect(await rerun({})).toMatchObject({ queued: 0, memoryIds: [], message: 'Every memory was extracted by the current model.' });
    const before = await entityNames();
    const untouched = await status(ids[0] as string);

    // As if Tom's memory had been extracted by another model that found nothing in it.
    const store = t.deps.storage.knowledge(t.deps.ownerId);
    const tom = await status(ids[1] as string);
    await t.deps.knowledge.memoriesDeleted(t.deps.ownerId, [ids[1] as string]);
    await store.putStatus({ ...tom, model: 'ollama/some-older-model', entities: 0, facts: 0 });
    expect(await entityNames()).not.toContain('Tom Baker');

    const response = await rerun({});
    expect(response).toMatchObject({ queued: 1, memoryIds: [ids[1]] });
    expect(response.message).toContain('1 memory again');
    await t.deps.knowledge.idle();
    expect(await entityNames()).toEqual(before);
    expect(await status(ids[1] as string)).toMatchObject({ status: 'completed', model: tom.model, attempts: tom.attempts + 1 });
    // The others were not touched.
    expect(await status(ids[0] as string)).toEqual(untouched);
  });

  it('with all, every standard memory, as background work; the status shows the model and nothing queued once done', async () => {
    // The service's extractor (private to it): what priority each extraction asks for.
    const extractor = (t.deps.knowledge as unknown as { deps: { extractor: Extractor } }).deps.extractor;
    const extract = vi.spyOn(extractor, 'extract');
    try {
      const response = await rerun({ all: true });
      expect(response.queued).toBe(3);
      expect([...response.memoryIds].sort()).toEqual([...ids].sort());
      await t.deps.knowledge.idle();
      // Requests' own extractions and embeddings go first (the extraction thread and embedder take
      // interactive work before background work).
      expect(extract.mock.calls.map(([request]) => request.priority)).toEqual(['background', 'background', 'background']);
    } finally {
      extract.mockRestore();
    }
    const body = (await t.request({ method: 'GET', url: '/v1/status' })).json<StatusResponse>();
    expect(body.extraction).toEqual({ model: 'builtin/rules-v1', queued: 0 });
    for (const id of ids) expect(await status(id)).toMatchObject({ status: 'completed' });
  });

  it('refuses a body it does not understand, and read-only keys', async () => {
    for (const payload of [{ all: 'yes' }, { every: true }]) {
      const response = await t.request({ method: 'POST', url: '/v1/extract/rerun', payload });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
    }
    const readOnly = (await t.deps.auth.createKey(t.deps.ownerId, { name: 'read-only', type: 'live', readOnly: true })).value;
    const refused = await t.request({ method: 'POST', url: '/v1/extract/rerun', payload: {}, headers: { authorization: `Bearer ${readOnly}` } });
    expect(refused.statusCode).toBe(403);
  });
});
