import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../src/core/types.js';
import { MemoryRowCache } from '../../src/store/lancedb/memory-row-cache.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';

const DIM = 4;

function memory(id: string, content: string, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id,
    title: content.slice(0, 20),
    content,
    description: '',
    tags: [],
    metadata: {},
    spaceId: '',
    createdAt: Date.UTC(2026, 0, 1),
    updatedAt: null,
    contentHash: `h-${id}-${content}`,
    turbo: true,
    context: '',
    author: '',
    ...extra,
  };
}

const passage = (text: string) => [{ seq: 0, text, vector: Float32Array.from([1, 0, 0, 1]) }];

describe('MemoryRowCache', () => {
  it('keeps what fits by the last use, and nothing a read began before a change', () => {
    // Each of these records is 2 x 20 characters + 256 = 296 bytes (sizeOf): three fit in 900.
    const cache = new MemoryRowCache(900);
    const record = (id: string) => memory(id, '0123456789', { title: '0123456789' });
    cache.remember('a', [record('m1'), record('m2'), record('m3')], cache.epoch());
    expect(cache.size).toBe(3);
    expect(cache.get('a', 'm1')?.id).toBe('m1');
    cache.remember('a', [record('m4')], cache.epoch());
    // m2 was used least recently (m1 was just read).
    expect(cache.get('a', 'm2')).toBeUndefined();
    expect(cache.get('a', 'm1')?.id).toBe('m1');
    expect(cache.get('b', 'm1')).toBeUndefined();

    const before = cache.epoch();
    cache.invalidate();
    expect(cache.size).toBe(0);
    cache.remember('a', [record('m5')], before);
    expect(cache.get('a', 'm5')).toBeUndefined();
    cache.remember('a', [memory('big', 'x'.repeat(1000))], cache.epoch());
    expect(cache.get('a', 'big')).toBeUndefined();
  });
});

describe('reads by id through the row cache', () => {
  let dir: string;
  let store: LanceStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mem-row-cache-'));
    store = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: DIM }, maintainEveryWrites: 0, compactSearchTablesEvery: 0 });
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('see every change this store makes: an edit, a deletion, an import, an account removed', async () => {
    const memories = store.memories('usr_cache');
    const other = store.memories('usr_cache_other');
    await memories.insert(memory('mem_a', 'first version'), passage('first version'));
    await memories.insert(memory('mem_b', 'another note'), passage('another note'));
    await other.insert(memory('mem_c', 'the other account'), passage('x'));
    expect((await memories.get('mem_a'))?.content).toBe('first version');
    expect((await other.get('mem_c'))?.content).toBe('the other account');
    expect(await other.get('mem_a')).toBeNull();

    await memories.replace(memory('mem_a', 'second version'));
    expect((await memories.get('mem_a'))?.content).toBe('second version');
    expect((await memories.getMany(['mem_a', 'mem_b', 'mem_nope'])).map((m) => m.content).sort()).toEqual(['another note', 'second version']);

    // A read under way while the row changes returns what it read, but does not keep it.
    const reading = memories.get('mem_b');
    const replacing = memories.replace(memory('mem_b', 'edited while read'));
    await Promise.all([reading, replacing]);
    expect((await memories.get('mem_b'))?.content).toBe('edited while read');

    await memories.putMany([{ memory: memory('mem_a', 'imported version'), chunks: passage('imported version') }]);
    expect((await memories.get('mem_a'))?.content).toBe('imported version');

    expect(await memories.delete(['mem_b'])).toEqual(['mem_b']);
    expect(await memories.get('mem_b')).toBeNull();
    expect((await memories.getMany(['mem_a', 'mem_b'])).map((m) => m.id)).toEqual(['mem_a']);

    await store.purge(['usr_cache_other']);
    expect(await other.get('mem_c')).toBeNull();
    expect((await memories.get('mem_a'))?.content).toBe('imported version');
  });

  it('are not kept on a store shared with other daemons, whose writes this one cannot see happen', async () => {
    const sharedDir = mkdtempSync(join(tmpdir(), 'mem-row-cache-shared-'));
    const open = () => openLanceStore({ uri: sharedDir, vectorSpace: { modelId: 'test/model', dimension: DIM }, maintainEveryWrites: 0, compactSearchTablesEvery: 0, shared: { readConsistencyMs: 0 } });
    const [one, two] = [await open(), await open()];
    try {
      await one.memories('usr_s').insert(memory('mem_s', 'as saved'), passage('as saved'));
      expect((await one.memories('usr_s').get('mem_s'))?.content).toBe('as saved');
      await two.memories('usr_s').replace(memory('mem_s', 'edited by the other daemon'));
      expect((await one.memories('usr_s').get('mem_s'))?.content).toBe('edited by the other daemon');
      await two.memories('usr_s').delete(['mem_s']);
      expect(await one.memories('usr_s').get('mem_s')).toBeNull();
    } finally {
      await one.close();
      await two.close();
      rmSync(sharedDir, { recursive: true, force: true });
    }
  });
});
