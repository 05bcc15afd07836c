import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_TALLY } from '../../src/core/knowledge/entity-tally.js';
import { newId } from '../../src/core/ids.js';
import type { Storage } from '../../src/core/ports.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { gt } from '../../src/store/lancedb/predicate.js';
import { holdWriters, inspectStore } from '../../src/store/lancedb/backup.js';
import { openLanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { OperationGate } from '../../src/store/lancedb/operation-gate.js';
import { TableWriter } from '../../src/store/lancedb/table-writer.js';

/** The store methods export, import and backup use (lancedb-store.ts, knowledge-store.ts, backup.ts). */
const DIM = 4;
let dir: string;
let storage: Storage;

function memory(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: newId('memory'),
    title: 't',
    content: 'c',
    description: '',
    context: '',
    author: '',
    tags: [],
    metadata: {},
    spaceId: '',
    createdAt: Date.now(),
    updatedAt: null,
    contentHash: 'h',
    turbo: false,
    ...overrides,
  };
}

const vec = (...values: number[]) => new Float32Array(values);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-store-export-'));
  storage = await openLanceStore({ uri: join(dir, 'db'), vectorSpace: { modelId: 'test/model', dimension: DIM }, maintainEveryWrites: 0 });
});

afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('paging and bulk writes for export and import', () => {
  it('pages memories by id, scoped to the tenant, with space and changed-since filters', async () => {
    const store = storage.memories('usr_page');
    const records = Array.from({ length: 7 }, (_, i) =>
      memory({ spaceId: i % 2 === 0 ? 'even' : 'odd', createdAt: 1000 + i, updatedAt: i === 1 ? 5000 : null }),
    );
    for (const record of records) await store.insert(record, [{ seq: 0, text: 'x', vector: vec(1, 0, 0, 0) }]);
    await storage.memories('usr_other').insert(memory(), []);
    const sorted = records.map((record) => record.id).sort();
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: MemoryRecord[] = await store.page({ after, limit: 3 });
      if (page.length === 0) break;
      seen.push(...page.map((record) => record.id));
      after = page[page.length - 1]?.id ?? null;
    }
    expect(seen).toEqual(sorted);
    expect((await store.page({ after: null, limit: 10, spaceId: 'even' })).map((record) => record.spaceId)).toEqual(['even', 'even', 'even', 'even']);
    // Created at or after 1005, or updated at or after it (the second record).
    expect((await store.page({ after: null, limit: 10, changedSince: 1005 })).map((record) => record.id).sort()).toEqual(
      [records[1], records[5], records[6]].map((record) => record?.id).sort(),
    );
  });

  it('putMany inserts and replaces memories with their vectors; ids of another tenant are reported', async () => {
    const store = storage.memories('usr_put');
    const first = memory({ title: 'one' });
    const second = memory({ title: 'two' });
    await store.putMany([
      { memory: first, chunks: [{ seq: 0, text: 'a', vector: vec(1, 0, 0, 0) }, { seq: 1, text: 'b', vector: vec(0, 1, 0, 0) }] },
      { memory: second, chunks: [{ seq: 0, text: 'c', vector: vec(0, 0, 1, 0) }] },
    ]);
    await store.putMany([{ memory: { ...first, title: 'one again', tags: ['t'] }, chunks: [{ seq: 0, text: 'z', vector: vec(0, 0, 0, 1) }] }]);
    expect(await store.get(first.id)).toEqual({ ...first, title: 'one again', tags: ['t'] });
    const chunks = await store.chunksOf([first.id, second.id]);
    expect(chunks.get(first.id)).toEqual([{ seq: 0, text: 'z', vector: vec(0, 0, 0, 1) }]);
    expect(chunks.get(second.id)?.map((chunk) => chunk.text)).toEqual(['c']);
    expect((await store.vectorSearch(vec(0, 0, 0, 1), { tags: ['t'] }, 5)).map((hit) => hit.memoryId)).toEqual([first.id]);
    expect((await store.idsWithVectors([first.id, second.id, newId('memory')])).sort()).toEqual([first.id, second.id].sort());
    expect(await store.existingIds([first.id, 'mem_missing'])).toEqual([first.id]);
    expect(await storage.memories('usr_elsewhere').takenElsewhere([first.id, newId('memory')])).toEqual([first.id]);
    expect(await store.takenElsewhere([first.id])).toEqual([]);
  });

  it('knowledge pages, lookups by id, bulk statuses and foreign ids', async () => {
    const knowledge = storage.knowledge('usr_k');
    const entity = (id: string) => ({
      id,
      name: id,
      type: 'person' as const,
      aliases: [],
      properties: {},
      mentions: 1,
      firstSeen: 1,
      lastSeen: 1,
      relatedDocuments: ['mem_x'],
      matchKeys: [`n:${id}`],
      tally: UNKNOWN_TALLY,
    });
    const ids = ['ent_c', 'ent_a', 'ent_b'];
    await knowledge.write({
      upsertEntities: ids.map(entity),
      addContributions: ids.map((id) => ({ entityId: id, memoryId: 'mem_x', contribution: { mentions: 1, seenAt: 1, names: [id], properties: {} } })),
    });
    expect([...(await knowledge.contributionsOf(['ent_a', 'ent_none'])).entries()]).toEqual([['ent_a', { mem_x: { mentions: 1, seenAt: 1, names: ['ent_a'], properties: {} } }]]);
    expect(await storage.knowledge('usr_j').contributionsOf(['ent_a'])).toEqual(new Map());
    expect((await knowledge.entityPage(null, 2)).map((record) => record.id)).toEqual(['ent_a', 'ent_b']);
    expect((await knowledge.entityPage('ent_b', 2)).map((record) => record.id)).toEqual(['ent_c']);
    expect(await knowledge.takenElsewhere('entities', ['ent_a'])).toEqual([]);
    expect(await storage.knowledge('usr_j').takenElsewhere('entities', ['ent_a', 'ent_z'])).toEqual(['ent_a']);
    const status = (memoryId: string) => ({ memoryId, status: 'completed' as const, error: null, model: 'm', attempts: 1, updatedAt: 2, entities: 1, facts: 0 });
    await knowledge.putStatuses([status('mem_1'), status('mem_2')]);
    expect((await knowledge.statusesOf(['mem_2', 'mem_3'])).map((record) => record.memoryId)).toEqual(['mem_2']);
    expect(await knowledge.factsByIds([])).toEqual([]);
    expect(await knowledge.edgesByIds(['edge_none'])).toEqual([]);
  });

  it('gt() escapes its value like every predicate', () => {
    expect(gt('id', "mem_' OR 1=1 --")).toBe("id > 'mem_'' OR 1=1 --'");
    expect(gt('created_at', 5)).toBe('created_at > 5');
  });
});

describe('backups', () => {
  it('holdWriters holds every writer until the work is done: writes wait, reads go on', async () => {
    const table = await (await import('@lancedb/lancedb')).connect(join(dir, 'hold')).then((db) =>
      db.createTable('t', [{ id: 'a', n: 1 }], { mode: 'overwrite' }),
    );
    const writer = new TableWriter(table);
    let appended = false;
    let pending: Promise<void> | undefined;
    await holdWriters([writer], async () => {
      pending = writer.append([{ id: 'b', n: 2 }]).then(() => {
        appended = true;
      });
      // Reads are not held.
      expect(await table.countRows()).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await table.countRows()).toBe(1);
      expect(appended).toBe(false);
    });
    await pending;
    expect(appended).toBe(true);
    expect(await table.countRows()).toBe(2);
  });

  it('a backup copies a consistent directory that opens with the same counts; it never deadlocks with maintenance', async () => {
    const store = storage.memories('usr_backup');
    await store.insert(memory(), [{ seq: 0, text: 'x', vector: vec(1, 1, 0, 0) }]);
    const writes = Array.from({ length: 5 }, () => store.insert(memory(), [{ seq: 0, text: 'y', vector: vec(0, 1, 1, 0) }]));
    const [snapshot, report] = await Promise.all([storage.backup(join(dir, 'copy')), storage.maintain(), ...writes]);
    expect(report.tables).toBeGreaterThan(0);
    expect(await inspectStore(join(dir, 'copy'))).toEqual(snapshot);
    const memories = snapshot.tables.find((entry) => entry.name === 'memories')?.rows ?? 0;
    const chunks = snapshot.tables.find((entry) => entry.name.startsWith('chunks__'))?.rows ?? -1;
    expect(memories).toBeGreaterThan(0);
    // Every memory row of this store has one vector row, in the copy too.
    expect(chunks).toBeGreaterThanOrEqual(memories - 1);
    await expect(storage.backup(join(dir, 'copy'))).rejects.toThrow();
    // A second backup after the first, and maintenance after both, still run.
    await Promise.all([storage.backup(join(dir, 'copy2')), storage.maintain()]);
  });
});

describe('the operation gate', () => {
  it('a backup waits for the operations in flight, and new operations wait for the backup', async () => {
    const gate = new OperationGate();
    const log: string[] = [];
    let finish = () => {};
    const operation = gate.run(
      () =>
        new Promise<void>((resolve) => {
          log.push('operation');
          finish = () => {
            log.push('operation done');
            resolve();
          };
        }),
    );
    const backup = gate.exclusive(async () => {
      log.push('backup');
    });
    const later = gate.run(async () => {
      log.push('later operation');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['operation']);
    finish();
    await Promise.all([operation, backup, later]);
    expect(log).toEqual(['operation', 'operation done', 'backup', 'later operation']);
  });
});
