import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitiesResponse, FactsResponse, GraphResponse } from '../../src/api/contract.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * Concurrent standard saves of one account apply their extractions in batches (one commit per knowledge
 * table for the batch). The knowledge they leave must be what the same saves leave one at a time.
 */
const PEOPLE = ['Sarah Chen', 'Tom Baker', 'Priya Raman', 'Dana Okafor'];
const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Logistics'];
const PLACES = ['Berlin', 'Lisbon', 'Toronto', 'Osaka'];
const TOPICS = ['launch', 'budget', 'hiring', 'pricing'];
const NOTES = Array.from(
  { length: 16 },
  (_, i) =>
    `${PEOPLE[i % 4]} from ${COMPANIES[(i + 1) % 4]} met ${PEOPLE[(i + 2) % 4]} in ${PLACES[Math.floor(i / 4)]} to review the ${TOPICS[(i + 3) % 4]} plan.`,
);

const homes: ReturnType<typeof tempHome>[] = [];
let oneByOne: TestApp;
let together: TestApp;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) homes.push(tempHome());
  oneByOne = await createTestApp({ home: homes[0] });
  // Every save in flight at once, whatever the machine's cores (the write lane admits two per core): the
  // test is about how saves that run together share knowledge commits, not about admission.
  together = await createTestApp({
    home: homes[1],
    admissionLimits: {
      read: { concurrency: 16, maxQueued: 64 },
      search: { concurrency: 16, maxQueued: 64 },
      write: { concurrency: NOTES.length, maxQueued: 64 },
      bulk: { concurrency: 2, maxQueued: 8 },
    },
  });
});

afterAll(async () => {
  await oneByOne.close();
  await together.close();
  await closeTestEmbedder();
});

async function save(t: TestApp, content: string): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ documentId: string }>().documentId;
}

async function get<T>(t: TestApp, url: string): Promise<T> {
  const response = await t.request({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
}

/** The account's knowledge without ids (they are minted per save), sorted. */
async function knowledge(t: TestApp, ids: readonly string[]) {
  const note = (id: string) => ids.indexOf(id);
  const [entities, facts, graph] = await Promise.all([
    get<EntitiesResponse>(t, '/v1/entities?limit=1000'),
    get<FactsResponse>(t, '/v1/facts?limit=1000&includeSuperseded=true'),
    get<GraphResponse>(t, '/v1/graph?limit=1000'),
  ]);
  const nameOf = new Map(entities.entities.map((entity) => [entity.id, entity.name]));
  return {
    entities: entities.entities
      .map((entity) => `${entity.name}|${entity.type}|${entity.mentions}|${entity.relatedDocuments.map(note).sort((a, b) => a - b).join(',')}`)
      .sort(),
    facts: facts.facts
      .map((fact) => `${fact.subject}|${fact.predicate}|${fact.object}|${fact.supportingDocuments.map(note).sort((a, b) => a - b).join(',')}|${fact.validTo === null}`)
      .sort(),
    // RELATED_TO has no direction: it goes from the lower entity id to the higher, and ids are minted per save.
    edges: graph.edges
      .map((edge) => {
        const ends = [nameOf.get(edge.source), nameOf.get(edge.target)];
        const [from, to] = edge.relationship === 'RELATED_TO' ? ends.sort() : ends;
        return `${from}|${edge.relationship}|${to}|${edge.strength}`;
      })
      .sort(),
  };
}

const versions = (t: { dir: string }, table: string) => readdirSync(join(t.dir, 'data', 'lancedb', `${table}.lance`, '_versions')).length;

describe('concurrent standard saves', () => {
  it('leave the same entities, facts and edges as the same saves one at a time, in fewer commits', async () => {
    const sequentialIds: string[] = [];
    for (const content of NOTES) sequentialIds.push(await save(oneByOne, content));

    const entityVersions = versions(homes[1] as { dir: string }, 'entities');
    const statusVersions = versions(homes[1] as { dir: string }, 'extraction_status');
    const concurrentIds = await Promise.all(NOTES.map((content) => save(together, content)));

    const expected = await knowledge(oneByOne, sequentialIds);
    expect(expected.entities.length).toBeGreaterThanOrEqual(12);
    expect(expected.facts.length).toBeGreaterThan(0);
    expect(expected.edges.length).toBeGreaterThan(0);
    expect(await knowledge(together, concurrentIds)).toEqual(expected);

    // Every save returned with its extraction recorded.
    for (const id of concurrentIds) {
      expect(await get(together, `/v1/extract/${id}`)).toMatchObject({ status: 'completed' });
    }
    // One at a time, each save commits the entities table; together, batches share commits.
    expect(versions(homes[1] as { dir: string }, 'entities') - entityVersions).toBeLessThan(NOTES.length / 2);
    expect(versions(homes[1] as { dir: string }, 'extraction_status') - statusVersions).toBeLessThan(NOTES.length / 2);
    expect(versions(homes[0] as { dir: string }, 'entities')).toBeGreaterThanOrEqual(NOTES.length);
  });
});
