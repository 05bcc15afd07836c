import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitiesResponse, FactsResponse, GraphResponse } from '../../src/api/contract.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

async function save(content: string): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ documentId: string }>().documentId;
}

async function get<T>(url: string): Promise<T> {
  const response = await t.request({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
}

async function error(url: string): Promise<{ status: number; error: string; message: string }> {
  const response = await t.request({ method: 'GET', url });
  const body = response.json<{ error: string; message: string; success: boolean }>();
  expect(body.success).toBe(false);
  return { status: response.statusCode, error: body.error, message: body.message };
}

const entityNamed = (body: EntitiesResponse, name: string) => body.entities.find((entity) => entity.name === name);

/** Every knowledge record of the account, read back through the API (big limits). */
async function everything() {
  const [entities, facts, graph] = await Promise.all([
    get<EntitiesResponse>('/v1/entities?limit=1000'),
    get<FactsResponse>('/v1/facts?limit=1000&includeSuperseded=true'),
    get<GraphResponse>('/v1/graph?limit=1000'),
  ]);
  return { entities: entities.entities, facts: facts.facts, graph };
}

describe('knowledge from a standard save (the issue example)', () => {
  let id: string;

  beforeAll(async () => {
    id = await save('Sarah Chen is the CEO of Acme Corp. She met David Okafor from Globex in Berlin on 3 March 2026.');
  });

  it('entities are queryable as soon as the save returns', async () => {
    const body = await get<EntitiesResponse>('/v1/entities');
    const byName = Object.fromEntries(body.entities.map((entity) => [entity.name, entity]));
    expect(byName['Sarah Chen']).toMatchObject({ type: 'person', mentions: 2, relatedDocuments: [id], id: expect.stringMatching(/^ent_/) });
    expect(byName['Acme Corp']).toMatchObject({ type: 'company', relatedDocuments: [id] });
    expect(byName['David Okafor']).toMatchObject({ type: 'person' });
    expect(byName.Globex).toMatchObject({ type: 'company' });
    expect(byName.Berlin).toMatchObject({ type: 'location' });
    expect(byName['3 March 2026']).toMatchObject({ type: 'date', properties: { date: '2026-03-03' } });
    expect(body.stats).toMatchObject({ person: 2, company: 2, location: 1, date: 1 });
    expect(body.pagination).toEqual({ limit: 50, offset: 0, total: body.entities.length });
    expect(Date.parse(byName['Sarah Chen']?.firstSeen ?? '')).toBeGreaterThan(0);
  });

  it('facts carry category, confidence and the sentence as excerpt', async () => {
    const body = await get<FactsResponse>(`/v1/facts?entity=${encodeURIComponent('Sarah Chen')}`);
    const ceo = body.facts.find((fact) => fact.predicate === 'CEO_OF');
    expect(ceo).toMatchObject({
      subject: 'Sarah Chen',
      object: 'Acme Corp',
      category: 'role',
      confidence: 0.9,
      statement: 'Sarah Chen is the CEO of Acme Corp',
      source: { documentId: id, excerpt: 'Sarah Chen is the CEO of Acme Corp.' },
      validTo: null,
    });
    const okafor = await get<FactsResponse>('/v1/facts?entity=David%20Okafor');
    expect(okafor.facts).toContainEqual(expect.objectContaining({ predicate: 'WORKS_AT', object: 'Globex', category: 'relationship' }));
  });

  it('the graph around Acme Corp reaches Sarah Chen and, at depth 2, her neighbours', async () => {
    const one = await get<GraphResponse>('/v1/graph?entity=Acme%20Corp');
    const names = (graph: GraphResponse) => graph.nodes.map((node) => node.name).sort();
    expect(names(one)).toContain('Sarah Chen');
    const sarah = one.nodes.find((node) => node.name === 'Sarah Chen');
    const acme = one.nodes.find((node) => node.name === 'Acme Corp');
    expect(one.edges).toContainEqual({ source: sarah?.id, target: acme?.id, relationship: 'CEO_OF', strength: expect.any(Number) });
    for (const edge of one.edges) expect(edge.strength).toBeGreaterThan(0), expect(edge.strength).toBeLessThanOrEqual(1);
    expect(acme).toMatchObject({ type: 'company', mentionCount: 1, properties: {} });
    const two = await get<GraphResponse>('/v1/graph?entity=Acme%20Corp&depth=2');
    expect(names(two)).toEqual(expect.arrayContaining(['Acme Corp', 'Sarah Chen', 'David Okafor', 'Berlin']));
    expect(two.stats).toMatchObject({ totalNodes: two.nodes.length, totalEdges: two.edges.length });
    expect(two.stats.types.person).toBe(2);
  });

  it('reports the extraction status of the memory', async () => {
    const status = await get<{ status: string; model: string; entities: number; facts: number }>(`/v1/extract/${id}`);
    expect(status).toMatchObject({ status: 'completed', model: 'builtin/rules-v1', entities: 6 });
    expect(status.facts).toBeGreaterThanOrEqual(2);
    expect(await error('/v1/extract/not-an-id')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(await error('/v1/extract/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toMatchObject({ status: 404, error: 'NOT_FOUND' });
  });
});

describe('GET /v1/entities', () => {
  it('filters by type, searches names and aliases case-insensitively, sorts and pages', async () => {
    await save('Lunch with Priya Raman from Northwind Traders. Priya says Northwind is based in Austin.');
    await save('Priya Raman sent the Northwind Traders contract. Northwind wants to start in May.');
    const people = await get<EntitiesResponse>('/v1/entities?type=person');
    expect(people.entities.every((entity) => entity.type === 'person')).toBe(true);
    expect(people.pagination.total).toBe(people.entities.length);

    const search = await get<EntitiesResponse>('/v1/entities?search=NORTHW');
    expect(search.entities.map((entity) => entity.name)).toEqual(['Northwind Traders']);
    expect(search.entities[0]).toMatchObject({ aliases: ['Northwind'], mentions: 4 });
    expect(search.entities[0]?.relatedDocuments).toHaveLength(2);

    const byMentions = await get<EntitiesResponse>('/v1/entities?sortBy=mentions');
    const counts = byMentions.entities.map((entity) => entity.mentions);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const byName = await get<EntitiesResponse>('/v1/entities?sortBy=name&limit=100');
    const names = byName.entities.map((entity) => entity.name.toLowerCase());
    expect(names).toEqual([...names].sort());

    const recent = await get<EntitiesResponse>('/v1/entities?sortBy=recent&limit=100');
    const seen = recent.entities.map((entity) => Date.parse(entity.lastSeen));
    expect(seen).toEqual([...seen].sort((a, b) => b - a));

    const page = await get<EntitiesResponse>('/v1/entities?sortBy=name&limit=2&offset=1');
    expect(page.entities.map((entity) => entity.id)).toEqual(byName.entities.slice(1, 3).map((entity) => entity.id));
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: byName.pagination.total });
  });

  it('rejects an invalid type or sortBy, listing the valid values', async () => {
    const type = await error('/v1/entities?type=planet');
    expect(type).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(type.message).toContain('person, company, product, concept, location, event, date');
    const sort = await error('/v1/entities?sortBy=size');
    expect(sort).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(sort.message).toContain('mentions, name, recent');
    expect(await error('/v1/entities?limit=0')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
  });

  it('needs a key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/entities' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'UNAUTHORIZED' });
  });
});

describe('GET /v1/facts', () => {
  it('filters by category, minimum confidence and entity alias', async () => {
    await save('Globex revenue grew 20% to $3M in the second quarter. Hank Scorpio is the founder of Globex.');
    const metric = await get<FactsResponse>('/v1/facts?category=metric');
    expect(metric.facts).toContainEqual(
      expect.objectContaining({ subject: 'Globex', predicate: 'REVENUE', object: '+20% to $3M', category: 'metric' }),
    );
    expect(metric.facts.every((fact) => fact.category === 'metric')).toBe(true);
    const confident = await get<FactsResponse>('/v1/facts?confidence=0.88&limit=1000');
    expect(confident.facts.length).toBeGreaterThan(0);
    expect(confident.facts.every((fact) => fact.confidence >= 0.88)).toBe(true);
    const all = await get<FactsResponse>('/v1/facts?limit=1000');
    expect(all.facts.length).toBeGreaterThan(confident.facts.length);
    // By alias: "Northwind" names Northwind Traders.
    const northwind = await get<FactsResponse>('/v1/facts?entity=northwind');
    expect(northwind.facts).toContainEqual(expect.objectContaining({ subject: 'Northwind Traders', predicate: 'LOCATED_IN', object: 'Austin' }));
    const unknown = await get<FactsResponse>('/v1/facts?entity=Nobody%20Known');
    expect(unknown).toEqual({ success: true, facts: [], pagination: { limit: 50, offset: 0, total: 0 } });
    const paged = await get<FactsResponse>('/v1/facts?limit=1&offset=1');
    expect(paged.facts).toHaveLength(1);
    expect(paged.facts[0]?.id).toBe(all.facts[1]?.id);
  });

  it('rejects an invalid category or a confidence outside 0-1', async () => {
    const category = await error('/v1/facts?category=gossip');
    expect(category).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(category.message).toContain('role, date, metric, relationship, attribute, event');
    expect(await error('/v1/facts?confidence=1.5')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR', message: expect.stringContaining('between 0 and 1') });
    expect(await error('/v1/facts?confidence=-0.1')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(await error('/v1/facts?confidence=high')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
  });

  it('a contradicting later fact supersedes the older one instead of deleting it', async () => {
    await save('Tom Becker works at Initech as an engineer.');
    await save('Big news: Tom Becker joined Hooli on 2 February 2026.');
    const current = await get<FactsResponse>('/v1/facts?entity=Tom%20Becker');
    const works = current.facts.filter((fact) => fact.predicate === 'WORKS_AT');
    expect(works.map((fact) => fact.object)).toEqual(['Hooli']);
    expect(works[0]).toMatchObject({ validFrom: '2026-02-02T00:00:00.000Z', validTo: null });
    const history = await get<FactsResponse>('/v1/facts?entity=Tom%20Becker&includeSuperseded=true');
    const old = history.facts.find((fact) => fact.object === 'Initech');
    expect(old).toMatchObject({ predicate: 'WORKS_AT', validTo: '2026-02-02T00:00:00.000Z', supersededBy: works[0]?.id });
  });
});

describe('GET /v1/graph', () => {
  it('answers an unknown entity with an empty graph', async () => {
    const body = await get<GraphResponse>('/v1/graph?entity=Nobody%20Known');
    expect(body).toEqual({ success: true, nodes: [], edges: [], stats: { totalNodes: 0, totalEdges: 0, types: {} } });
  });

  it('rejects depth above 3 and an invalid type', async () => {
    expect(await error('/v1/graph?depth=4')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR', message: expect.stringContaining('at most 3') });
    expect(await error('/v1/graph?depth=0')).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    const type = await error('/v1/graph?type=alien');
    expect(type).toMatchObject({ status: 400, error: 'VALIDATION_ERROR' });
    expect(type.message).toContain('person, company');
  });

  it('keeps the strongest neighbours within the limit, and filters node types', async () => {
    // Acme Corp: Sarah Chen is stated as CEO (strong), Berlin only co-occurs (weak).
    const limited = await get<GraphResponse>('/v1/graph?entity=Sarah%20Chen&limit=2');
    expect(limited.nodes.map((node) => node.name)).toEqual(['Sarah Chen', 'Acme Corp']);
    expect(limited.edges.map((edge) => edge.relationship)).toContain('CEO_OF');
    const people = await get<GraphResponse>('/v1/graph?entity=Acme%20Corp&depth=2&type=person');
    expect(people.nodes.every((node) => node.type === 'person' || node.name === 'Acme Corp')).toBe(true);
    const top = await get<GraphResponse>('/v1/graph?limit=3');
    expect(top.nodes).toHaveLength(3);
    const mentions = top.nodes.map((node) => node.mentionCount);
    expect(mentions).toEqual([...mentions].sort((a, b) => b - a));
  });
});

describe('aliases merge across memories, deterministically and carefully', () => {
  it('merges S. Chen, Acme Corporation and ACME into the known entities', async () => {
    const second = await save('Call with S. Chen about the Acme Corporation budget. ACME wants the numbers by Friday.');
    const body = await get<EntitiesResponse>('/v1/entities?search=chen');
    expect(body.entities).toHaveLength(1);
    expect(body.entities[0]).toMatchObject({ name: 'Sarah Chen', aliases: expect.arrayContaining(['S. Chen']), mentions: 3 });
    expect(body.entities[0]?.relatedDocuments).toContain(second);
    const acme = await get<EntitiesResponse>('/v1/entities?search=acme');
    expect(acme.entities).toHaveLength(1);
    expect(acme.entities[0]?.aliases).toEqual(expect.arrayContaining(['Acme Corporation', 'ACME']));
    expect(acme.entities[0]?.relatedDocuments).toHaveLength(2);
  });

  it('never merges two people who only share a first name without evidence', async () => {
    await save('Sarah Miller called about the garden fence.');
    await save('Sarah brought cake to the book club.');
    const body = await get<EntitiesResponse>('/v1/entities?search=sarah&type=person');
    const names = body.entities.map((entity) => entity.name).sort();
    expect(names).toEqual(['Sarah', 'Sarah Chen', 'Sarah Miller']);
    // With evidence (the memory also names Acme, which Sarah Chen's memories name), a bare "Sarah" joins her.
    const withEvidence = await save('Sarah sent the Acme Corp board deck.');
    const after = await get<EntitiesResponse>('/v1/entities?search=sarah&type=person');
    expect(after.entities.find((entity) => entity.name === 'Sarah Chen')?.relatedDocuments).toContain(withEvidence);
    expect(after.entities.find((entity) => entity.name === 'Sarah')?.relatedDocuments).not.toContain(withEvidence);
  });

  it('a person called by one word alone is the one already known by that word, as a reader of a chat takes it', async () => {
    // Before, each of these made a person of its own: one word alone is a weak match, and no memory here
    // names anyone else to give evidence.
    const nate = [await save('I met Nate at the pier yesterday.'), await save('Nate said the tide was high.'), await save('We thanked Nate for the ride home.')];
    const nates = await get<EntitiesResponse>('/v1/entities?search=nate&type=person');
    expect(nates.entities.map((entity) => entity.name)).toEqual(['Nate']);
    expect(nates.entities[0]).toMatchObject({ mentions: 3 });
    expect([...(nates.entities[0]?.relatedDocuments ?? [])].sort()).toEqual([...nate].sort());
    // The same in one knowledge batch (a bulk ingest), where the first of them is not stored yet.
    const job = await t.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: { async: false, items: ['Omar waved from the ferry.', 'Omar missed the bus.', 'The dog followed Omar home.'].map((content) => ({ content })) },
    });
    expect(job.statusCode, job.body).toBe(200);
    const omars = await get<EntitiesResponse>('/v1/entities?search=omar&type=person');
    expect(omars.entities.map((entity) => [entity.name, entity.relatedDocuments.length])).toEqual([['Omar', 3]]);

    // The one person who goes by it as an alias.
    await save('Olivia Brandt chaired the review; Olivia brought the slides.');
    const projector = await save('Olivia fixed the projector after lunch.');
    const olivia = await get<EntitiesResponse>('/v1/entities?search=olivia&type=person');
    expect(olivia.entities.map((entity) => entity.name)).toEqual(['Olivia Brandt']);
    expect(olivia.entities[0]?.relatedDocuments).toContain(projector);

    // Two Sarahs with full names and one known only as "Sarah" (the test above): a bare "Sarah" is the last.
    const plants = await save('Sarah watered the plants.');
    const sarahs = await get<EntitiesResponse>('/v1/entities?search=sarah&type=person');
    expect(sarahs.entities.map((entity) => entity.name).sort()).toEqual(['Sarah', 'Sarah Chen', 'Sarah Miller']);
    expect(sarahs.entities.find((entity) => entity.name === 'Sarah')?.relatedDocuments).toContain(plants);
  });

  it('two people named together are one related pair, whichever of them speaks first', async () => {
    const first = await save('Rafael: Thanks, Ingrid! The ferry was late again.');
    const second = await save('Ingrid: No problem, Rafael. See you at the pier.');
    const graph = await get<GraphResponse>('/v1/graph?entity=Rafael');
    const ids = Object.fromEntries(graph.nodes.map((node) => [node.name, node.id]));
    const pair = graph.edges.filter((edge) => [edge.source, edge.target].sort().join() === [ids.Rafael, ids.Ingrid].sort().join());
    // Before, one edge each way.
    expect(pair).toHaveLength(1);
    expect(pair[0]).toMatchObject({ relationship: 'RELATED_TO', source: [ids.Rafael, ids.Ingrid].sort()[0] });
    const { graph: all } = await everything();
    expect(all.edges.filter((edge) => edge.relationship === 'RELATED_TO' && [edge.source, edge.target].includes(ids.Ingrid as string))).toHaveLength(1);
    // Both memories support it: without the second it stays, weaker.
    const deleted = await t.request({ method: 'DELETE', url: `/v1/memory/${second}` });
    expect(deleted.statusCode).toBe(200);
    const after = (await get<GraphResponse>('/v1/graph?entity=Rafael')).edges.filter((edge) => edge.relationship === 'RELATED_TO' && [edge.source, edge.target].includes(ids.Ingrid as string));
    expect(after).toHaveLength(1);
    expect(after[0]?.strength).toBeLessThan(pair[0]?.strength as number);
    expect(first).toMatch(/^mem_/);
  });
});

describe('deletes and updates leave nothing orphaned', () => {
  it('deleting a memory removes its contributions from every table; updating re-extracts', async () => {
    const before = await everything();
    const counts = await t.deps.knowledge.counts(t.deps.ownerId);
    const first = await save('Zara Okonkwo is the CTO of Vandelay Industries. Vandelay Industries is headquartered in Lagos.');
    const second = await save('Zara Okonkwo presented at the Lagos Tech Summit with Kofi Mensah.');
    const during = await everything();
    expect(entityNamed({ entities: during.entities } as EntitiesResponse, 'Zara Okonkwo')?.relatedDocuments).toEqual([first, second]);

    // Update the second memory's content: what it said before is gone, what it says now is there.
    const patch = await t.request({ method: 'PATCH', url: `/v1/memory/${second}`, payload: { content: 'Kofi Mensah joined Pied Piper.' } });
    expect(patch.statusCode, patch.body).toBe(200);
    const updated = await everything();
    const names = updated.entities.map((entity) => entity.name);
    expect(names).not.toContain('Lagos Tech Summit');
    expect(names).toContain('Pied Piper');
    expect(updated.entities.find((entity) => entity.name === 'Zara Okonkwo')).toMatchObject({ relatedDocuments: [first], mentions: 1 });
    expect(updated.facts).toContainEqual(expect.objectContaining({ subject: 'Kofi Mensah', predicate: 'WORKS_AT', object: 'Pied Piper' }));
    expect(updated.facts.some((fact) => fact.predicate === 'INVOLVED_IN' && fact.subject === 'Zara Okonkwo')).toBe(false);

    // Delete both: every table is back to what it was.
    const deleted = await t.request({ method: 'POST', url: '/v1/memories/delete', payload: { ids: [first, second] } });
    expect(deleted.json()).toMatchObject({ deleted: 2 });
    const after = await everything();
    expect(after.entities).toEqual(before.entities);
    expect(after.facts.map((fact) => fact.id).sort()).toEqual(before.facts.map((fact) => fact.id).sort());
    expect(after.graph.edges).toEqual(before.graph.edges);
    expect(await t.deps.knowledge.counts(t.deps.ownerId)).toEqual(counts);
    for (const entity of after.entities) expect(entity.relatedDocuments).not.toContain(first);
    for (const fact of after.facts) expect(fact.supportingDocuments).not.toContain(second);
  });

  it('a save whose memory fails to commit records no knowledge and no status (they are prepared meanwhile)', async () => {
    const before = await everything();
    const counts = await t.deps.knowledge.counts(t.deps.ownerId);
    const storage = t.deps.storage;
    const memories = storage.memories.bind(storage);
    storage.memories = (accountId) => {
      const store = memories(accountId);
      return Object.assign(Object.create(store) as typeof store, {
        insert: async () => {
          // Fails after the extraction has had time to reach the knowledge lock.
          await new Promise((resolve) => setTimeout(resolve, 50));
          throw new Error('simulated disk failure');
        },
      });
    };
    try {
      const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'Odalys Brandt is the CEO of Quillfeather Labs in Tallinn.' } });
      expect(response.statusCode, response.body).toBe(500);
      expect(response.json()).toMatchObject({ success: false });
    } finally {
      storage.memories = memories;
    }
    expect(await everything()).toEqual(before);
    expect(await t.deps.knowledge.counts(t.deps.ownerId)).toEqual(counts);
    // The next save of the same text works and extracts.
    await save('Odalys Brandt is the CEO of Quillfeather Labs in Tallinn.');
    expect((await get<EntitiesResponse>('/v1/entities?search=odalys')).entities).toHaveLength(1);
  });

  it('of concurrent saves applied together, one whose memory fails to commit leaves the others intact', async () => {
    const storage = t.deps.storage;
    const memories = storage.memories.bind(storage);
    storage.memories = (accountId) => {
      const store = memories(accountId);
      return Object.assign(Object.create(store) as typeof store, {
        insert: async (memory: Parameters<typeof store.insert>[0], chunks: Parameters<typeof store.insert>[1]) => {
          if (!memory.content.includes('Brightwater')) return store.insert(memory, chunks);
          await new Promise((resolve) => setTimeout(resolve, 50));
          throw new Error('simulated disk failure');
        },
      });
    };
    let responses;
    try {
      responses = await Promise.all(
        [
          'Piet Vandersloot founded Brightwater Analytics in Utrecht.',
          'Marisol Etxeberria is the COO of Larkspur Freight in Bilbao.',
          'Tomasz Wierzbicki leads research at Halvard Robotics in Krakow.',
        ].map((content) => t.request({ method: 'POST', url: '/v1/save', payload: { content } })),
      );
    } finally {
      storage.memories = memories;
    }
    expect(responses.map((response) => response.statusCode)).toEqual([500, 201, 201]);
    const names = (await everything()).entities.map((entity) => entity.name);
    expect(names).toEqual(expect.arrayContaining(['Marisol Etxeberria', 'Larkspur Freight', 'Tomasz Wierzbicki', 'Halvard Robotics']));
    expect(names).not.toContain('Piet Vandersloot');
    expect(names).not.toContain('Brightwater Analytics');
    for (const response of responses.slice(1)) {
      const id = response.json<{ documentId: string }>().documentId;
      expect(await get(`/v1/extract/${id}`)).toMatchObject({ status: 'completed' });
    }
  });

  it('deleting the only memory of an entity deletes it, its facts and its edges; shared ones lose a mention', async () => {
    const lone = await save('Ines Duarte is the CFO of Umbrella Logistics.');
    const acmeBefore = (await get<EntitiesResponse>('/v1/entities?search=acme')).entities[0];
    const shared = await save('Met Ines Duarte at Acme Corp in Berlin.');
    const response = await t.request({ method: 'DELETE', url: `/v1/memory/${lone}` });
    expect(response.statusCode).toBe(200);
    const ines = (await get<EntitiesResponse>('/v1/entities?search=ines')).entities;
    expect(ines).toHaveLength(1);
    expect(ines[0]).toMatchObject({ relatedDocuments: [shared], mentions: 1 });
    expect((await get<EntitiesResponse>('/v1/entities?search=umbrella')).entities).toEqual([]);
    expect((await get<FactsResponse>('/v1/facts?entity=Ines%20Duarte&includeSuperseded=true')).facts.some((fact) => fact.predicate === 'CFO_OF')).toBe(false);
    await t.request({ method: 'DELETE', url: `/v1/memory/${shared}` });
    expect((await get<EntitiesResponse>('/v1/entities?search=ines')).entities).toEqual([]);
    expect((await get<EntitiesResponse>('/v1/entities?search=acme')).entities[0]).toEqual(acmeBefore);
    const statusGone = await error(`/v1/extract/${shared}`);
    expect(statusGone).toMatchObject({ status: 404 });
  });
});

describe('turbo saves and tenancy', () => {
  it('a turbo save extracts nothing and has no extraction status', async () => {
    const counts = await t.deps.knowledge.counts(t.deps.ownerId);
    const memory = await t.deps.memories.save(t.deps.ownerId, { content: 'Olga Petrova is the CEO of Spacely Sprockets.', turbo: true });
    expect(await t.deps.knowledge.counts(t.deps.ownerId)).toEqual(counts);
    expect(await error(`/v1/extract/${memory.id}`)).toMatchObject({ status: 404, error: 'NOT_FOUND', message: expect.stringContaining('turbo') });
  });

  it('knowledge is scoped to the account', async () => {
    expect(await t.deps.storage.knowledge('usr_01ARZ3NDEKTSV4RRFFQ69G5FAV').counts()).toEqual({ entities: 0, contributions: 0, facts: 0, edges: 0, statuses: 0 });
    expect((await t.deps.knowledge.counts(t.deps.ownerId)).entities).toBeGreaterThan(0);
  });

  it('retry with nothing failed retries nothing', async () => {
    const response = await t.request({ method: 'POST', url: '/v1/extract/retry', payload: {} });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ success: true, retried: 0, memoryIds: [] });
  });

  it('the routes are in the OpenAPI document', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = Object.keys(response.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths).toEqual(expect.arrayContaining(['/v1/entities', '/v1/facts', '/v1/graph', '/v1/extract/{id}', '/v1/extract/retry']));
  });
});
