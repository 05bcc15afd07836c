import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it } from 'vitest';
import type { EdgeRecord, EntityRecord, FactRecord } from '../../src/core/knowledge/types.js';
import { openLanceStore, type CompactionReport, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';

const dirs: string[] = [];
const stores: LanceStore[] = [];
/** Background compactions that failed: none may. */
const errors: unknown[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  expect(errors.splice(0).map(String)).toEqual([]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(options: { compactKnowledgeTablesEvery: number; onKnowledgeTablesCompacted?: (report: CompactionReport) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-knowledge-compaction-'));
  dirs.push(dir);
  const store = await openLanceStore({
    uri: dir,
    vectorSpace: { modelId: 'test/model', dimension: 4 },
    maintainEveryWrites: 0,
    compactSearchTablesEvery: 0,
    onMaintenanceError: (error) => errors.push(error),
    ...options,
  });
  stores.push(store);
  return { dir, store };
}

/** Fragments of a table as LanceDB reports them, read through a connection of its own. */
async function fragments(dir: string, table: string): Promise<number> {
  const db = await lancedb.connect(dir);
  try {
    return (await (await db.openTable(table)).stats()).fragmentStats.numFragments;
  } finally {
    db.close();
  }
}

const PEOPLE = ['Ann', 'Bob', 'Cy', 'Dee', 'Eve'];

function entity(i: number, memoryId: string): EntityRecord {
  const name = PEOPLE[i % PEOPLE.length] ?? 'Ann';
  return {
    id: `ent_${i % PEOPLE.length}`,
    name,
    type: 'person',
    aliases: [],
    properties: {},
    mentions: i + 1,
    firstSeen: 0,
    lastSeen: i,
    relatedDocuments: [memoryId],
    documents: {},
    matchKeys: [`n:${name.toLowerCase()}`],
  };
}

function fact(i: number, memoryId: string): FactRecord {
  const subjectId = `ent_${i % PEOPLE.length}`;
  return {
    id: `fact_${i}`,
    subjectId,
    subject: PEOPLE[i % PEOPLE.length] ?? 'Ann',
    predicate: 'works_at',
    object: `Company ${i}`,
    objectId: null,
    category: 'role',
    statement: `${PEOPLE[i % PEOPLE.length]} works at Company ${i}`,
    confidence: 0.9,
    source: { documentId: memoryId, excerpt: '' },
    extractedAt: i,
    validFrom: null,
    validTo: null,
    supersededBy: null,
    supports: [{ memoryId, statement: '', excerpt: '', confidence: 0.9, extractedAt: i, validFrom: null, statedAt: i }],
  };
}

function edge(i: number, memoryId: string): EdgeRecord {
  return {
    id: `edge_${i % PEOPLE.length}`,
    sourceId: `ent_${i % PEOPLE.length}`,
    targetId: `ent_${(i + 1) % PEOPLE.length}`,
    relationship: 'works_with',
    strength: i + 1,
    supports: [{ memoryId, confidence: 1 }],
  };
}

const byId = <T extends { id: string }>(records: readonly T[]) => [...records].sort((a, b) => a.id.localeCompare(b.id));

describe('compaction of the knowledge tables', () => {
  it('runs after N commits to the entities, facts and edges tables and leaves every read identical', async () => {
    const reports: CompactionReport[] = [];
    let compacted!: () => void;
    const done = new Promise<void>((resolve) => (compacted = resolve));
    const busy = await open({
      compactKnowledgeTablesEvery: 10,
      onKnowledgeTablesCompacted: (report) => {
        reports.push(report);
        compacted();
      },
    });
    const reference = await open({ compactKnowledgeTablesEvery: 0 });
    // Each write merges entities and edges that exist already (updated) and facts that do not (inserted),
    // as the batches of a standard ingest do.
    for (let i = 0; i < 10; i++) {
      const memoryId = `mem_${i}`;
      for (const { store } of [busy, reference]) {
        await store.knowledge('usr_a').write({ upsertEntities: [entity(i, memoryId)], upsertFacts: [fact(i, memoryId)], upsertEdges: [edge(i, memoryId)] });
      }
    }
    await done;
    expect(reports).toHaveLength(1);
    expect(reports[0]?.tables).toEqual(['entities', 'facts', 'edges']);
    expect(reports[0]?.compactedFragments).toBeGreaterThan(0);
    for (const table of ['entities', 'facts', 'edges']) {
      expect(await fragments(busy.dir, table)).toBeLessThanOrEqual(2);
      // Without it, merges leave fragments each later merge joins with (one per write that inserted rows,
      // one per updated record's latest version).
      expect(await fragments(reference.dir, table)).toBeGreaterThanOrEqual(5);
    }

    const a = busy.store.knowledge('usr_a');
    const b = reference.store.knowledge('usr_a');
    const ids = PEOPLE.map((_, i) => `ent_${i}`);
    expect(byId(await a.entitiesByIds(ids))).toEqual(byId(await b.entitiesByIds(ids)));
    expect(byId(await a.entitiesByKeys(['n:ann', 'n:eve']))).toHaveLength(2);
    expect(byId(await a.factsOfSubjects(ids))).toEqual(byId(await b.factsOfSubjects(ids)));
    expect(byId(await a.edgesTouching(ids, true))).toEqual(byId(await b.edgesTouching(ids, true)));
    expect(await a.counts()).toEqual({ entities: 5, facts: 10, edges: 5, statuses: 0 });
    expect(await a.counts()).toEqual(await b.counts());
  });

  it('compacts only the knowledge tables that took commits, and gives way to a full pass', async () => {
    const { dir, store } = await open({ compactKnowledgeTablesEvery: 0 });
    expect(await store.compactKnowledgeTables()).toMatchObject({ tables: [], compactedFragments: 0 });
    const knowledge = store.knowledge('usr_b');
    await knowledge.write({ upsertFacts: [fact(1, 'mem_1')] });
    await knowledge.write({ upsertFacts: [fact(2, 'mem_2')] });
    expect((await store.compactKnowledgeTables())?.tables).toEqual(['facts']);
    expect(await fragments(dir, 'facts')).toBe(1);
    expect(await store.compactKnowledgeTables()).toMatchObject({ tables: [] });
    // The search tables are a group of their own.
    expect(await store.compactSearchTables()).toMatchObject({ tables: [] });

    await knowledge.write({ upsertEntities: [entity(1, 'mem_3')] });
    const pass = store.maintain();
    expect(await store.compactKnowledgeTables()).toBeNull();
    await pass;
    // The pass covered the commits counted before it.
    expect(await store.compactKnowledgeTables()).toMatchObject({ tables: [] });
    expect((await knowledge.factsOfSubjects(['ent_1', 'ent_2'])).map((f) => f.id).sort()).toEqual(['fact_1', 'fact_2']);
  });
});
