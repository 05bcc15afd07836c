import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveEntity } from '../../src/core/knowledge/derive.js';
import { UNKNOWN_TALLY, withContribution, withoutContribution } from '../../src/core/knowledge/entity-tally.js';
import { matchKeys, nameQuality } from '../../src/core/knowledge/names.js';
import type { EntityContribution, EntityRecord } from '../../src/core/knowledge/types.js';
import type { EntityType } from '../../src/providers/spec.js';
import { tallyFromJson, tallyToJson } from '../../src/store/lancedb/knowledge-store.js';

/**
 * The definition an entity's fields must keep: derived from all of its contributions at once, in the order
 * the entity saw them (this is how every entity was derived before tallies; the tally adds one memory at a
 * time and must come to the same record).
 */
function definition(base: { id: string; type: EntityType }, documents: Record<string, EntityContribution>) {
  const entries = Object.entries(documents).sort(([a, x], [b, y]) => x.seenAt - y.seenAt || (a < b ? -1 : 1));
  if (entries.length === 0) return null;
  const names = new Map<string, { display: string; documents: number; first: number }>();
  let order = 0;
  for (const [, contribution] of entries) {
    const seen = new Set<string>();
    for (const name of contribution.names) {
      const key = name.trim().toLowerCase();
      if (!key) continue;
      const entry = names.get(key) ?? { display: name.trim(), documents: 0, first: order++ };
      if (!seen.has(key)) entry.documents++;
      seen.add(key);
      names.set(key, entry);
    }
  }
  const ranked = [...names.values()].sort(
    (a, b) =>
      Math.floor(nameQuality(b.display, base.type)) - Math.floor(nameQuality(a.display, base.type)) ||
      b.documents - a.documents ||
      a.first - b.first,
  );
  const properties: Record<string, string | number | boolean> = {};
  for (const [, contribution] of entries) Object.assign(properties, contribution.properties);
  const allNames = ranked.map((entry) => entry.display);
  return {
    id: base.id,
    type: base.type,
    name: ranked[0]?.display ?? base.id,
    aliases: allNames.slice(1),
    properties,
    mentions: entries.reduce((sum, [, contribution]) => sum + contribution.mentions, 0),
    firstSeen: Math.min(...entries.map(([, contribution]) => contribution.seenAt)),
    lastSeen: Math.max(...entries.map(([, contribution]) => contribution.seenAt)),
    relatedDocuments: entries.map(([memoryId]) => memoryId),
    matchKeys: matchKeys(allNames, base.type),
  };
}

/** Everything a reader can see of a record, property order included. */
function visible(entity: Omit<EntityRecord, 'tally'> | null) {
  if (!entity) return null;
  const { properties, ...rest } = entity;
  delete (rest as { tally?: unknown }).tally;
  return { ...rest, propertyOrder: Object.keys(properties), properties };
}

/** What the store keeps of an entity and gives back. */
const stored = (entity: EntityRecord): EntityRecord => ({ ...entity, tally: tallyFromJson(tallyToJson(entity.tally)) });

const NAMES = ['Maya Lopez', 'maya lopez', 'Maya', ' Maya ', 'M. Lopez', 'MAYA', 'Dr Maya Lopez', 'Lopez', ''];
const contribution = fc.record({
  mentions: fc.integer({ min: 1, max: 4 }),
  // Few distinct times: ties between memories are common, and so are memories older than the last one.
  seenAt: fc.integer({ min: 0, max: 6 }).map((step) => 1_700_000_000_000 + step * 1000),
  names: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }),
  properties: fc.dictionary(fc.constantFrom('role', 'city', '2', '10', 'team'), fc.oneof(fc.constantFrom('lead', 'Lisbon', 'Porto'), fc.integer({ min: 0, max: 3 }), fc.boolean()), {
    maxKeys: 3,
  }),
});
const history = fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), contribution, fc.boolean()), { minLength: 1, maxLength: 25 });

describe('an entity tallied one memory at a time', () => {
  it('equals the entity derived from all of its contributions at once, after every memory, through the store or not', () => {
    fc.assert(
      fc.property(history, fc.constantFrom<EntityType>('person', 'company', 'concept'), (steps, type) => {
        const base = { id: 'ent_1', type };
        let documents: Record<string, EntityContribution> = {};
        let entity: EntityRecord | null = null;
        for (const [n, drawn, throughStore] of steps) {
          const memoryId = `mem_${String(n).padStart(3, '0')}`;
          // A memory contributes at its own time (its createdAt), whichever extraction it comes from.
          const next = { ...drawn, seenAt: documents[memoryId]?.seenAt ?? drawn.seenAt };
          const before = documents;
          documents = { ...documents, [memoryId]: next };
          if (entity && throughStore) entity = stored(entity);
          // As the knowledge service does: from the tally when it can, else from all contributions.
          entity = (entity && withContribution(entity, memoryId, next)) ?? deriveEntity(base, documents);
          expect(visible(entity)).toEqual(visible(definition(base, documents)));
          expect(entity?.tally).toEqual(deriveEntity(base, documents)?.tally);
          // Forgetting the memory again gives the entity as it was without it.
          const without = withoutContribution(entity as EntityRecord, documents, memoryId).entity;
          if (Object.hasOwn(before, memoryId)) continue;
          expect(visible(without)).toEqual(visible(definition(base, before)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('adds a later memory from the tally and leaves the entity it started from as it was', () => {
    const first: EntityContribution = { mentions: 1, seenAt: 1000, names: ['Maya Lopez'], properties: { role: 'lead' } };
    const entity = deriveEntity({ id: 'ent_1', type: 'person' }, { mem_a: first }) as EntityRecord;
    const tally = tallyToJson(entity.tally);
    const added = withContribution(entity, 'mem_b', { mentions: 2, seenAt: 2000, names: ['Maya'], properties: { role: 'director' } });
    expect(added?.relatedDocuments).toEqual(['mem_a', 'mem_b']);
    expect(added?.properties).toEqual({ role: 'director' });
    expect(added?.mentions).toBe(3);
    expect(entity.relatedDocuments).toEqual(['mem_a']);
    expect(tallyToJson(entity.tally)).toBe(tally);
  });

  it('leaves to the full derivation a memory that contributes again, or is not the latest, or a damaged tally', () => {
    const entity = deriveEntity({ id: 'ent_1', type: 'person' }, {
      mem_a: { mentions: 1, seenAt: 1000, names: ['Maya Lopez'], properties: {} },
      mem_b: { mentions: 5, seenAt: 2000, names: ['Maya'], properties: {} },
    }) as EntityRecord;
    const again: EntityContribution = { mentions: 1, seenAt: 2000, names: ['Maya Lopez'], properties: {} };
    expect(withContribution(entity, 'mem_b', again)).toBeNull();
    expect(withContribution(entity, 'mem_0', { ...again, seenAt: 1500 })).toBeNull();
    // Same time as the latest, a lower id: it goes before it.
    expect(withContribution(entity, 'mem_a2', again)).toBeNull();
    expect(withContribution(entity, 'mem_c', again)?.relatedDocuments).toEqual(['mem_a', 'mem_b', 'mem_c']);
    expect(withContribution({ ...entity, tally: UNKNOWN_TALLY }, 'mem_c', { ...again, seenAt: 9000 })).toBeNull();
  });
});

describe('a tally in the store', () => {
  it('reads back as written, and a damaged one as unknown', () => {
    const entity = deriveEntity({ id: 'ent_1', type: 'person' }, {
      mem_a: { mentions: 2, seenAt: 1000, names: ['Maya Lopez', 'Maya'], properties: { role: 'lead', '2': 3 } },
      mem_b: { mentions: 1, seenAt: 2000, names: ['Maya'], properties: { role: 'director', remote: true } },
    }) as EntityRecord;
    expect(tallyFromJson(tallyToJson(entity.tally))).toEqual(entity.tally);
    for (const damaged of ['', '{', '{"names":[["maya",{"display":1}]]}', 'null']) expect(tallyFromJson(damaged)).toBe(UNKNOWN_TALLY);
  });
});
