import { describe, expect, it } from 'vitest';
import { StagedKnowledge, type KnowledgeApplyStore } from '../../src/core/knowledge/staged-knowledge.js';
import { UNKNOWN_TALLY } from '../../src/core/knowledge/entity-tally.js';
import type { EdgeRecord, EntityContributions, EntityRecord, FactRecord, KnowledgeChanges } from '../../src/core/knowledge/types.js';

function entity(id: string, matchKeys: string[]): EntityRecord {
  return { id, name: id, type: 'person', aliases: [], properties: {}, mentions: 1, firstSeen: 0, lastSeen: 0, relatedDocuments: ['mem_a'], matchKeys, tally: UNKNOWN_TALLY };
}

function edge(id: string, sourceId: string, targetId: string): EdgeRecord {
  return { id, sourceId, targetId, relationship: 'works_with', strength: 1, supports: [{ memoryId: 'mem_a', confidence: 1 }] };
}

function fact(id: string, subjectId: string): FactRecord {
  return { id, subjectId, subject: subjectId, predicate: 'role', object: 'x', objectId: null, category: 'role', statement: '', confidence: 1, source: { documentId: 'mem_a', excerpt: '' }, extractedAt: 0, validFrom: null, validTo: null, supersededBy: null, supports: [] };
}

/** A store underneath that answers from arrays, as the LanceDB store's predicates do, and counts its reads. */
function fakeStore(entities: EntityRecord[], edges: EdgeRecord[], facts: FactRecord[], contributions = new Map<string, EntityContributions>()) {
  const calls: { method: string; args: unknown[] }[] = [];
  const store: KnowledgeApplyStore = {
    entitiesByKeys: async (keys) => {
      calls.push({ method: 'entitiesByKeys', args: [keys] });
      return entities.filter((e) => e.matchKeys.some((key) => keys.includes(key)));
    },
    entitiesOfMemory: async (memoryId) => entities.filter((e) => e.relatedDocuments.includes(memoryId)),
    contributionsOf: async (ids) => {
      calls.push({ method: 'contributionsOf', args: [ids] });
      return new Map([...contributions].filter(([id]) => ids.includes(id)));
    },
    factsOfMemory: async () => [],
    edgesOfMemory: async () => [],
    factsOfSubjects: async (ids) => {
      calls.push({ method: 'factsOfSubjects', args: [ids] });
      return facts.filter((f) => ids.includes(f.subjectId));
    },
    edgesTouching: async (ids, within = false) => {
      calls.push({ method: 'edgesTouching', args: [ids, within] });
      return edges.filter((e) => (within ? ids.includes(e.sourceId) && ids.includes(e.targetId) : ids.includes(e.sourceId) || ids.includes(e.targetId)));
    },
    write: async (_changes: KnowledgeChanges) => undefined,
  };
  return { store, calls };
}

const ENTITIES = [entity('ent_a', ['n:ann', 'g:ann']), entity('ent_b', ['n:bob']), entity('ent_c', ['n:cy']), entity('ent_d', ['n:dee'])];
const EDGES = [edge('edge_ab', 'ent_a', 'ent_b'), edge('edge_bc', 'ent_b', 'ent_c'), edge('edge_cd', 'ent_c', 'ent_d')];
const ids = (records: readonly { id: string }[]) => records.map((record) => record.id).sort();

describe('StagedKnowledge prefetch', () => {
  it('answers the reads a batch prefetched without asking the store, with what the store would answer', async () => {
    const { store, calls } = fakeStore(ENTITIES, EDGES, [fact('fact_a', 'ent_a'), fact('fact_c', 'ent_c'), fact('fact_d', 'ent_d')]);
    const staged = new StagedKnowledge(store);
    await staged.prefetch(['n:ann', 'n:bob', 'n:cy']);
    expect(calls.map((call) => call.method)).toEqual(['entitiesByKeys', 'edgesTouching', 'factsOfSubjects']);
    calls.length = 0;

    expect(ids(await staged.entitiesByKeys(['n:ann']))).toEqual(['ent_a']);
    expect(ids(await staged.entitiesByKeys(['n:bob', 'n:cy']))).toEqual(['ent_b', 'ent_c']);
    expect(ids(await staged.edgesTouching(['ent_a', 'ent_b'], true))).toEqual(['edge_ab']);
    expect(ids(await staged.edgesTouching(['ent_a', 'ent_c'], true))).toEqual([]);
    expect(ids(await staged.factsOfSubjects(['ent_a', 'ent_b']))).toEqual(['fact_a']);
    expect(ids(await staged.factsOfSubjects(['ent_c']))).toEqual(['fact_c']);
    expect(calls).toEqual([]);
    // A staged fact replaces the prefetched one, and a staged deletion hides it, as they would in the store.
    await staged.write({ upsertFacts: [{ ...fact('fact_a', 'ent_b') }], deleteFacts: ['fact_c'] });
    expect(ids(await staged.factsOfSubjects(['ent_a']))).toEqual([]);
    expect(ids(await staged.factsOfSubjects(['ent_b', 'ent_c']))).toEqual(['fact_a']);
    expect(calls).toEqual([]);
  });

  it('asks the store for what the prefetch does not cover', async () => {
    const { store, calls } = fakeStore(ENTITIES, EDGES, []);
    const staged = new StagedKnowledge(store);
    await staged.prefetch(['n:ann', 'n:bob']);
    calls.length = 0;

    // A key nobody prefetched, an entity outside the prefetched ones, edges touching (not within), and
    // facts of an entity the prefetch did not read.
    expect(ids(await staged.entitiesByKeys(['n:ann', 'n:dee']))).toEqual(['ent_a', 'ent_d']);
    expect(ids(await staged.edgesTouching(['ent_b', 'ent_c'], true))).toEqual(['edge_bc']);
    expect(ids(await staged.edgesTouching(['ent_b'], false))).toEqual(['edge_ab', 'edge_bc']);
    expect(await staged.factsOfSubjects(['ent_a', 'ent_c'])).toEqual([]);
    expect(calls.map((call) => call.method)).toEqual(['entitiesByKeys', 'edgesTouching', 'edgesTouching', 'factsOfSubjects']);
  });

  it('never asks the store about entities the batch created, and overlays what it staged', async () => {
    const { store, calls } = fakeStore(ENTITIES, EDGES, [fact('fact_b', 'ent_b'), fact('fact_c', 'ent_c')]);
    const staged = new StagedKnowledge(store);
    await staged.prefetch(['n:bob']);
    calls.length = 0;
    const created = staged.createEntityId(Date.UTC(2026, 0, 1));
    expect(created).toMatch(/^ent_[0-9A-HJKMNP-TV-Z]{26}$/);

    expect(await staged.factsOfSubjects([created])).toEqual([]);
    expect(await staged.edgesTouching([created], true)).toEqual([]);
    expect(calls).toEqual([]);

    // Mixed: the prefetched entity's facts come from the prefetch; only the stored entity the prefetch did not
    // read goes to the store; the staged edge and entity show up as the store would.
    expect(ids(await staged.factsOfSubjects([created, 'ent_b']))).toEqual(['fact_b']);
    expect(calls).toEqual([]);
    expect(ids(await staged.factsOfSubjects([created, 'ent_c']))).toEqual(['fact_c']);
    expect(calls).toEqual([{ method: 'factsOfSubjects', args: [['ent_c']] }]);
    calls.length = 0;
    await staged.write({ upsertEntities: [entity(created, ['n:zed'])], upsertEdges: [edge('edge_new', 'ent_b', created)], deleteEdges: ['edge_ab'] });
    expect(ids(await staged.edgesTouching(['ent_b', created], true))).toEqual(['edge_new']);
    expect(ids(await staged.entitiesByKeys(['n:bob']))).toEqual(['ent_b']);
    expect(calls).toEqual([]);
    expect(ids(await staged.entitiesByKeys(['n:zed']))).toEqual([created]);
  });

  it('without a prefetch reads go to the store as before', async () => {
    const { store, calls } = fakeStore(ENTITIES, EDGES, []);
    const staged = new StagedKnowledge(store);
    expect(ids(await staged.entitiesByKeys(['n:ann']))).toEqual(['ent_a']);
    expect(ids(await staged.edgesTouching(['ent_a', 'ent_b'], true))).toEqual(['edge_ab']);
    expect(calls.map((call) => call.method)).toEqual(['entitiesByKeys', 'edgesTouching']);
  });
});

describe('StagedKnowledge contributions', () => {
  const c = (seenAt: number) => ({ mentions: 1, seenAt, names: ['Ann'], properties: {} });

  it('reads an entity\'s stored contributions once and shows the staged ones over them, as the store would after the commit', async () => {
    const stored = new Map<string, EntityContributions>([
      ['ent_a', { mem_a: c(1), mem_b: c(2) }],
      ['ent_b', { mem_a: c(1) }],
    ]);
    const { store, calls } = fakeStore(ENTITIES, [], [], stored);
    const staged = new StagedKnowledge(store);
    expect(await staged.contributionsOf(['ent_a'])).toEqual(new Map([['ent_a', { mem_a: c(1), mem_b: c(2) }]]));
    await staged.write({ removeContributions: [{ entityId: 'ent_a', memoryId: 'mem_a' }], addContributions: [{ entityId: 'ent_a', memoryId: 'mem_c', contribution: c(3) }] });
    expect(await staged.contributionsOf(['ent_a'])).toEqual(new Map([['ent_a', { mem_b: c(2), mem_c: c(3) }]]));
    // A memory applied again: its pair is removed from the store and its new contribution added after.
    await staged.write({ removeContributions: [{ entityId: 'ent_a', memoryId: 'mem_b' }], addContributions: [{ entityId: 'ent_a', memoryId: 'mem_b', contribution: c(2.5) }] });
    await staged.write({ deleteEntities: ['ent_b'], removeContributions: [{ entityId: 'ent_b', memoryId: 'mem_a' }] });
    expect(await staged.contributionsOf(['ent_a', 'ent_b'])).toEqual(new Map([['ent_a', { mem_b: c(2.5), mem_c: c(3) }]]));
    const created = staged.createEntityId(5);
    await staged.write({ upsertEntities: [entity(created, [])], addContributions: [{ entityId: created, memoryId: 'mem_d', contribution: c(4) }] });
    expect(await staged.contributionsOf([created])).toEqual(new Map([[created, { mem_d: c(4) }]]));
    // The store was asked once, for the entity first read (ent_b's were gone by the time they were asked for).
    expect(calls.filter((call) => call.method === 'contributionsOf')).toEqual([{ method: 'contributionsOf', args: [['ent_a']] }]);

    const changes = staged.changes();
    expect(changes.removeContributions).toEqual([
      { entityId: 'ent_a', memoryId: 'mem_a' },
      { entityId: 'ent_a', memoryId: 'mem_b' },
    ]);
    expect(changes.deleteEntities).toEqual(['ent_b']);
    expect(changes.clearContributions).toEqual([]);
    expect(changes.addContributions?.map(({ entityId, memoryId }) => `${entityId}/${memoryId}`).sort()).toEqual([`${created}/mem_d`, 'ent_a/mem_b', 'ent_a/mem_c'].sort());
  });
});
