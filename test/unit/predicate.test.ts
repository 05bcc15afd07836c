import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, List, Schema, Utf8 } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, arrayHasAny, eq, gte, inList, literal, lte } from '../../src/store/lancedb/predicate.js';

const TRICKY = ["don't.md", '%', '_', "x' OR 1=1 --", "'; DROP TABLE t; --", 'back\\slash', 'quote"double', "''", 'emoji 🧠', 'nul\0byte'];

describe('literal()', () => {
  it('doubles single quotes and leaves everything else literal', () => {
    expect(literal("don't")).toBe("'don''t'");
    expect(literal("x' OR 1=1 --")).toBe("'x'' OR 1=1 --'");
    expect(literal('100%')).toBe("'100%'");
    expect(literal('nul\0byte')).toBe("'nulbyte'");
    expect(literal(12.5)).toBe('12.5');
    expect(literal(true)).toBe('true');
  });

  it('refuses non-finite numbers', () => {
    expect(() => literal(Number.NaN)).toThrow();
    expect(() => literal(Number.POSITIVE_INFINITY)).toThrow();
  });

  it('composes predicates', () => {
    expect(and(eq('id', 'a'), undefined, gte('created_at', 5))).toBe("(id = 'a') AND (created_at >= 5)");
    expect(and()).toBe('true');
    expect(inList('id', [])).toBe('false');
    expect(arrayHasAny('tags', ['a'])).toBe("array_has(tags, 'a')");
    expect(arrayHasAny('tags', ['a', "b'c"])).toBe("array_has_any(tags, make_array('a', 'b''c'))");
    expect(lte('created_at', 1)).toBe('created_at <= 1');
  });
});

describe('predicates against a real LanceDB table', () => {
  let dir: string;
  let table: lancedb.Table;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mem-predicate-'));
    const db = await lancedb.connect(dir);
    const schema = new Schema([
      new Field('id', new Utf8(), false),
      new Field('space_id', new Utf8(), false),
      new Field('tags', new List(new Field('item', new Utf8(), true)), false),
    ]);
    table = await db.createEmptyTable('t', schema);
    await table.add([
      ...TRICKY.map((value, index) => ({ id: `row${index}`, space_id: value.replaceAll('\0', ''), tags: [value.replaceAll('\0', '')] })),
      { id: 'plain', space_id: 'plain', tags: ['plain'] },
    ]);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('matches exactly the row holding each tricky value, never more', async () => {
    for (const [index, value] of TRICKY.entries()) {
      const bySpace = await table.query().where(eq('space_id', value)).toArray();
      expect(bySpace.map((row) => row.id), value).toEqual([`row${index}`]);
      const byTag = await table.query().where(arrayHasAny('tags', [value])).toArray();
      expect(byTag.map((row) => row.id), value).toEqual([`row${index}`]);
    }
  });

  it('injection attempts cannot widen a query or run statements', async () => {
    const rows = await table.query().where(eq('id', "x' OR '1'='1")).toArray();
    expect(rows).toEqual([]);
    expect(await table.countRows()).toBe(TRICKY.length + 1);
    const listed = await table.query().where(inList('id', ["plain' OR 'a'='a", 'plain'])).toArray();
    expect(listed.map((row) => row.id)).toEqual(['plain']);
  });
});
