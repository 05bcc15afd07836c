import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EntitiesResponse, FactsResponse } from '../../src/api/contract.js';
import { startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';

/** Extraction with extraction.provider=ollama, against the fake Ollama server: background queue and status. */
let fake: FakeOllama;
let t: TestApp;

const GOOD = {
  entities: [
    { name: 'Sarah Chen', type: 'person', aliases: ['Sarah'] },
    { name: 'Acme Corp', type: 'company', aliases: [] },
  ],
  facts: [
    {
      subject: 'Sarah Chen',
      predicate: 'CEO_OF',
      object: 'Acme Corp',
      category: 'role',
      confidence: 0.95,
      sentence: 'Sarah Chen is the CEO of Acme Corp.',
      validFrom: '2024-05-01',
    },
  ],
  relationships: [{ source: 'Sarah Chen', target: 'Acme Corp', relationship: 'CEO_OF', confidence: 0.9 }],
};

beforeAll(async () => {
  fake = await startFakeOllama();
  const home = tempHome();
  Object.assign(home.env, { MEM_EXTRACTOR: 'ollama', MEM_OLLAMA_HOST: fake.url, MEM_OLLAMA_TIMEOUT_MS: '1500' });
  t = await createTestApp({ home });
});

afterAll(async () => {
  await t.close();
  await fake.close();
  await closeTestEmbedder();
});

beforeEach(() => fake.script.clear());

async function saveAndSettle(content: string): Promise<{ id: string; pending: string }> {
  const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content } });
  expect(response.statusCode, response.body).toBe(201);
  const id = response.json<{ documentId: string }>().documentId;
  // Right after the save the extraction is queued, not done.
  const pending = (await t.request({ method: 'GET', url: `/v1/extract/${id}` })).json<{ status: string }>().status;
  await t.deps.knowledge.idle();
  return { id, pending };
}

async function status(id: string) {
  const response = await t.request({ method: 'GET', url: `/v1/extract/${id}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ status: string; error?: string; attempts: number; model: string; entities: number; facts: number }>();
}

describe('Ollama extraction', () => {
  it('runs in the background with a JSON schema in format, then the knowledge is there', async () => {
    const before = fake.requests.filter((request) => request.route === 'chat').length;
    fake.script.enqueue('chat', { kind: 'text', content: JSON.stringify(GOOD) });
    const { id, pending } = await saveAndSettle('Sarah Chen is the CEO of Acme Corp. Sarah loves sailing.');
    expect(['pending', 'processing']).toContain(pending);
    expect(await status(id)).toMatchObject({ status: 'completed', model: 'ollama/llama3.2', attempts: 1, entities: 2, facts: 1 });
    const chat = fake.requests.filter((request) => request.route === 'chat').slice(before);
    expect(chat).toHaveLength(1);
    const body = chat[0]?.body as { model: string; stream: boolean; format: { type: string; required: string[] }; messages: { content: string }[] };
    expect(body).toMatchObject({ model: 'llama3.2', stream: false, format: { type: 'object', required: ['entities', 'facts', 'relationships'] } });
    expect(body.messages.at(-1)?.content).toContain('Sarah Chen is the CEO of Acme Corp.');
    const facts = (await t.request({ method: 'GET', url: '/v1/facts?entity=Sarah' })).json<FactsResponse>();
    expect(facts.facts[0]).toMatchObject({
      predicate: 'CEO_OF',
      object: 'Acme Corp',
      confidence: 0.95,
      validFrom: '2024-05-01T00:00:00.000Z',
      source: { documentId: id, excerpt: 'Sarah Chen is the CEO of Acme Corp.' },
    });
  });

  it('drops an entity that is a pronoun, and the facts and relationships that rest on it', async () => {
    const sloppy = {
      entities: [
        { name: 'Tom Baker', type: 'person', aliases: ['he'] },
        { name: 'She', type: 'person', aliases: [] },
        { name: 'Globex', type: 'company', aliases: [] },
      ],
      facts: [
        { subject: 'She', predicate: 'CFO_OF', object: 'Globex', category: 'role', confidence: 0.9, sentence: 'She is the CFO of Globex.' },
        { subject: 'Tom Baker', predicate: 'REPORTS_TO', object: 'her', category: 'relationship', confidence: 0.8, sentence: 'Tom Baker reports to her.' },
        { subject: 'Tom Baker', predicate: 'WORKS_AT', object: 'Globex', category: 'relationship', confidence: 0.85, sentence: 'Tom Baker works at Globex.' },
      ],
      relationships: [
        { source: 'She', target: 'Globex', relationship: 'CFO_OF', confidence: 0.9 },
        { source: 'Tom Baker', target: 'Globex', relationship: 'WORKS_AT', confidence: 0.85 },
      ],
    };
    fake.script.enqueue('chat', { kind: 'text', content: JSON.stringify(sloppy) });
    const { id } = await saveAndSettle('Tom Baker works at Globex. He reports to her. She is the CFO of Globex.');
    expect(await status(id)).toMatchObject({ status: 'completed', entities: 2, facts: 1 });
    const she = (await t.request({ method: 'GET', url: '/v1/entities?search=she' })).json<EntitiesResponse>();
    expect(she.entities.map((entity) => entity.name)).not.toContain('She');
    const tom = (await t.request({ method: 'GET', url: '/v1/entities?search=tom' })).json<EntitiesResponse>();
    expect(tom.entities[0]?.aliases ?? []).not.toContain('he');
    const facts = (await t.request({ method: 'GET', url: '/v1/facts?entity=Tom%20Baker' })).json<FactsResponse>();
    expect(facts.facts.map((fact) => `${fact.predicate} ${fact.object}`)).toEqual(['WORKS_AT Globex']);
  });

  it('repairs prose around the JSON and broken JSON', async () => {
    const prose = { ...GOOD, entities: [{ name: 'Globex', type: 'Organization' }], facts: [], relationships: [] };
    fake.script.enqueue('chat', { kind: 'text', content: `Sure! Here is the JSON:\n\`\`\`json\n${JSON.stringify(prose)}\n\`\`\`\nHope this helps.` });
    const first = await saveAndSettle('Globex is growing.');
    expect(await status(first.id)).toMatchObject({ status: 'completed', attempts: 1, entities: 1 });
    const globex = (await t.request({ method: 'GET', url: '/v1/entities?search=globex' })).json<EntitiesResponse>();
    expect(globex.entities[0]).toMatchObject({ name: 'Globex', type: 'company' });

    // Trailing commas and an object cut off before its end.
    fake.script.enqueue('chat', { kind: 'text', content: '{"entities": [{"name": "Initech", "type": "company",}, {"name": "Dallas", "type": "location"' });
    const second = await saveAndSettle('Initech moved to Dallas.');
    expect(await status(second.id)).toMatchObject({ status: 'completed', entities: 2 });
  });

  it('coerces sloppy types and asks again when the output cannot be used', async () => {
    const before = fake.requests.filter((request) => request.route === 'chat').length;
    fake.script.enqueue(
      'chat',
      { kind: 'text', content: JSON.stringify({ entities: 'Sarah Chen', facts: 3 }) },
      {
        kind: 'text',
        content: JSON.stringify({
          entities: [{ name: 'Hooli', type: 'COMPANY', aliases: 'Hooli Inc' }],
          facts: [{ subject: 'Hooli', predicate: 'headcount', object: 120, category: 'metric', confidence: '0.7', sentence: 'Hooli has 120 people.' }],
          relationships: [],
        }),
      },
    );
    const { id } = await saveAndSettle('Hooli has 120 people.');
    expect(await status(id)).toMatchObject({ status: 'completed', entities: 1, facts: 1 });
    const chat = fake.requests.filter((request) => request.route === 'chat').slice(before);
    expect(chat).toHaveLength(2);
    const retry = chat[1]?.body as { messages: { role: string; content: string }[] };
    expect(retry.messages.at(-1)?.content).toMatch(/^That was not valid: the reply does not match the schema/);
    const facts = (await t.request({ method: 'GET', url: '/v1/facts?entity=Hooli%20Inc' })).json<FactsResponse>();
    expect(facts.facts[0]).toMatchObject({ predicate: 'HEADCOUNT', object: '120', confidence: 0.7, category: 'metric' });
  });

  it('marks a memory failed with the reason, never drops it, and retries it on request', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: 'I cannot help with that.' }, { kind: 'text', content: 'Still no JSON, sorry.' });
    const { id } = await saveAndSettle('Massive Dynamic hired Nina Sharp.');
    const failed = await status(id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.error).toContain('gave no valid extraction after 2 attempts: the reply is not JSON');

    fake.script.enqueue('chat', {
      kind: 'text',
      content: JSON.stringify({ entities: [{ name: 'Massive Dynamic', type: 'company' }, { name: 'Nina Sharp', type: 'person' }], facts: [], relationships: [] }),
    });
    const retry = await t.request({ method: 'POST', url: '/v1/extract/retry', payload: {} });
    expect(retry.json()).toMatchObject({ success: true, retried: 1, memoryIds: [id] });
    await t.deps.knowledge.idle();
    expect(await status(id)).toMatchObject({ status: 'completed', attempts: 2, entities: 2 });
  });

  it('a model that does not answer in time fails the extraction with a timeout reason', async () => {
    fake.script.enqueue('chat', { kind: 'hang' });
    const { id } = await saveAndSettle('Soylent Labs is based in Singapore.');
    const failed = await status(id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('did not answer /api/chat within 1500 ms');
  });

  it('a missing model fails with the pull command in the reason', async () => {
    fake.script.enqueue('chat', { kind: 'error', status: 404, error: 'model "llama3.2" not found, try pulling it first' });
    const { id } = await saveAndSettle('Vandelay Industries imports latex.');
    expect((await status(id)).error).toContain('ollama pull llama3.2');
  });

  it('deleting a memory while its extraction is queued leaves nothing behind', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: JSON.stringify(GOOD), delayMs: 200 });
    const counts = await t.deps.knowledge.counts(t.deps.ownerId);
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'Sarah Chen is the CEO of Acme Corp again.' } });
    const id = response.json<{ documentId: string }>().documentId;
    await fake.waitForRequests(1, 'chat');
    expect((await t.request({ method: 'DELETE', url: `/v1/memory/${id}` })).statusCode).toBe(200);
    await t.deps.knowledge.idle();
    expect(await t.deps.knowledge.counts(t.deps.ownerId)).toEqual({ ...counts, statuses: counts.statuses });
  });
});
