import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveEntity } from '../../src/core/knowledge/derive.js';
import { withContribution } from '../../src/core/knowledge/entity-tally.js';
import { matchKeys, nameQuality } from '../../src/core/knowledge/names.js';
import type { EntityContribution, EntityRecord } from '../../src/core/knowledge/types.js';
import type { EntityType } from '../../src/providers/spec.js';

/**
 * The definition an entity's fields must keep: derived from all of its contributions at once, in the order
 * the entity saw them (this is how every entity was derived before tallies; the tally adds one memory at a
 * time and must come to the same record).
 */
function definition(base: { id: string; type: EntityType }, documents: Record<string, EntityContribution>): EntityRecord | null {
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
    documents: Object.fromEntries(entries),
    matchKeys: matchKeys(allNames, base.type),
  };
}

/** Everything a reader can see of a record, property order included (documents compared as a set). */
function visible(entity: EntityRecord | null) {
  if (!entity) return null;
  const { documents, properties, ...rest } = entity;
  return { ...rest, propertyOrder: Object.keys(properties), properties, documents: new Map(Object.entries(documents)) };
}

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
const history = fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), contribution), { minLength: 1, maxLength: 25 });

describe('an entity tallied one memory at a time', () => {
  it('equals the entity derived from all of its contributions at once, after every memory', () => {
    fc.assert(
      fc.property(history, fc.constantFrom<EntityType>('person', 'company', 'concept'), (steps, type) => {
        const base = { id: 'ent_1', type };
        let documents: Record<string, EntityContribution> = {};
        let entity: EntityRecord | null = null;
        for (const [n, next] of steps) {
          const memoryId = `mem_${String(n).padStart(3, '0')}`;
          documents = { ...documents, [memoryId]: next };
          if (!entity) entity = deriveEntity(base, documents);
          else {
            const added = withContribution(entity, memoryId, next);
            added.keep();
            entity = added.entity;
          }
          expect(visible(entity)).toEqual(visible(definition(base, documents)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the entity it started from as it was until the result is kept', () => {
    const first: EntityContribution = { mentions: 1, seenAt: 1000, names: ['Maya Lopez'], properties: { role: 'lead' } };
    const entity = deriveEntity({ id: 'ent_1', type: 'person' }, { mem_a: first }) as EntityRecord;
    const added = withContribution(entity, 'mem_b', { mentions: 2, seenAt: 2000, names: ['Maya'], properties: { role: 'director' } });
    expect(Object.keys(entity.documents)).toEqual(['mem_a']);
    expect(added.entity.relatedDocuments).toEqual(['mem_a', 'mem_b']);
    expect(added.entity.properties).toEqual({ role: 'director' });
    expect(added.entity.mentions).toBe(3);
    added.keep();
    expect(Object.keys(added.entity.documents).sort()).toEqual(['mem_a', 'mem_b']);
  });

  it('derives a memory that contributes again from all contributions, its old one replaced', () => {
    const entity = deriveEntity({ id: 'ent_1', type: 'person' }, {
      mem_a: { mentions: 1, seenAt: 1000, names: ['Maya Lopez'], properties: {} },
      mem_b: { mentions: 5, seenAt: 2000, names: ['Maya'], properties: {} },
    }) as EntityRecord;
    const again = withContribution(entity, 'mem_b', { mentions: 1, seenAt: 2000, names: ['Maya Lopez'], properties: {} });
    expect(again.entity.mentions).toBe(2);
    expect(again.entity.aliases).toEqual([]);
    expect(again.entity.relatedDocuments).toEqual(['mem_a', 'mem_b']);
  });
});

describe('an entity read from the store', () => {
  it('takes the order of its memories from its contributions, as the full derivation does, when its list disagrees', () => {
    const documents: Record<string, EntityContribution> = { mem_a: { mentions: 1, seenAt: 1000, names: ['Maya Lopez'], properties: {} } };
    const derived = deriveEntity({ id: 'ent_1', type: 'person' }, documents) as EntityRecord;
    // A row whose contributions were damaged and read as fewer than its memory list names.
    const read: EntityRecord = { ...derived, relatedDocuments: ['mem_lost', 'mem_a'] };
    const next: EntityContribution = { mentions: 1, seenAt: 2000, names: ['Maya'], properties: {} };
    const added = withContribution(read, 'mem_b', next);
    added.keep();
    expect(visible(added.entity)).toEqual(visible(definition({ id: 'ent_1', type: 'person' }, { ...documents, mem_b: next })));
  });
});
