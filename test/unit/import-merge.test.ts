import { describe, expect, it } from 'vitest';
import { withStoredSupports, withValidity } from '../../src/core/export/import-merge.js';
import { deriveEdge, deriveFact } from '../../src/core/knowledge/derive.js';
import type { EdgeRecord, FactRecord, FactSupport } from '../../src/core/knowledge/types.js';

const support = (memoryId: string, statedAt: number, confidence = 0.8): FactSupport => ({
  memoryId,
  statement: `stated in ${memoryId}`,
  excerpt: memoryId,
  confidence,
  extractedAt: statedAt,
  validFrom: null,
  statedAt,
});

/** Sarah WORKS_AT `object`, stated by `supports`. */
function worksAt(id: string, object: string, supports: FactSupport[]): FactRecord {
  const fact = deriveFact({
    id,
    subjectId: 'ent_sarah',
    subject: 'Sarah Chen',
    predicate: 'WORKS_AT',
    object,
    objectId: null,
    category: 'role',
    validTo: null,
    supersededBy: null,
    supports,
  });
  if (!fact) throw new Error('a fact needs a support');
  return fact;
}

describe('what an import keeps of the stored knowledge', () => {
  it("a fact keeps the stored supports of memories the file does not name; the file's win for those it names", () => {
    const stored = worksAt('fact_a', 'Acme', [support('mem_1', 1, 0.5), support('mem_2', 2, 0.9)]);
    const file = worksAt('fact_a', 'Acme', [support('mem_1', 1, 0.7)]);
    const merged = withStoredSupports(file, stored, deriveFact);
    expect(merged.supports.map((s) => [s.memoryId, s.confidence])).toEqual([
      ['mem_1', 0.7],
      ['mem_2', 0.9],
    ]);
    // Derived again: the latest support speaks for the fact.
    expect(merged.source.documentId).toBe('mem_2');
    expect(merged.confidence).toBe(0.9);
    // Nothing stored beyond the file: the file's record as it is.
    expect(withStoredSupports(file, undefined, deriveFact)).toBe(file);
    expect(withStoredSupports(stored, file, deriveFact)).toBe(stored);
  });

  it('an edge gets its strength from the merged supports', () => {
    const edge = (supports: { memoryId: string; confidence: number }[]): EdgeRecord =>
      deriveEdge({ id: 'edge_1', sourceId: 'ent_a', targetId: 'ent_b', relationship: 'RELATED_TO', supports }) as EdgeRecord;
    const merged = withStoredSupports(edge([{ memoryId: 'mem_1', confidence: 0.9 }]), edge([{ memoryId: 'mem_2', confidence: 0.9 }]), deriveEdge);
    expect(merged.supports.map((s) => s.memoryId)).toEqual(['mem_1', 'mem_2']);
    expect(merged.strength).toBe(edge([{ memoryId: 'mem_1', confidence: 0.9 }, { memoryId: 'mem_2', confidence: 0.9 }]).strength);
  });

  it('a fact the file says is current stays superseded by a later one the account holds', () => {
    const later = worksAt('fact_b', 'Globex', [support('mem_2', 2)]);
    const older = worksAt('fact_a', 'Acme', [support('mem_1', 1)]);
    const stored = new Map([
      ['fact_a', { ...older, validTo: 2, supersededBy: 'fact_b' }],
      ['fact_b', later],
    ]);
    const { entries, extra } = withValidity([{ index: 3, record: older }], stored);
    expect(entries).toEqual([{ index: 3, record: { ...older, validTo: 2, supersededBy: 'fact_b' } }]);
    expect(extra).toEqual([]);
  });

  it('a stored fact that a later imported one contradicts becomes superseded, and is written too', () => {
    const stored = new Map([['fact_a', worksAt('fact_a', 'Acme', [support('mem_1', 1)])]]);
    const imported = worksAt('fact_b', 'Globex', [support('mem_2', 2)]);
    const { entries, extra } = withValidity([{ index: 0, record: imported }], stored);
    expect(entries.map(({ record }) => record)).toEqual([imported]);
    expect(extra).toEqual([{ ...stored.get('fact_a'), validTo: 2, supersededBy: 'fact_b' }]);
    // Facts of other subjects are not touched.
    const other = { ...worksAt('fact_c', 'Initech', [support('mem_3', 3)]), subjectId: 'ent_tom' };
    expect(withValidity([{ index: 0, record: imported }], new Map([...stored, ['fact_c', other]])).extra.map((fact) => fact.id)).toEqual(['fact_a']);
  });
});
