/**
 * Why a repeated save cleans up before it writes instead of writing idempotently (issue #24). A save that
 * dies between its two commits may leave passages without their memory; the save repeated under the same id
 * must not add its passages beside them. Two ways: every save with a pre-chosen id (async save, ingest
 * item, watched file) writes its passages as one merge keyed by memory id and passage index that replaces
 * what was there, or the resumed work deletes such passages once (one read, one commit for a whole job)
 * and saves append as usual. This measures the per-save cost of the first: A (append, what a save does)
 * and B (the merge) in pairs on one passages table of LanceDB (512-d, btree indexes on id and memory id,
 * compacted), medians and the ratio B / A, at two table sizes on a local directory and at the smaller on
 * Azurite (from npm, on 127.0.0.1). `uptime` is recorded.
 *
 *   node --import tsx bench/passage-writes.ts [--quick]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { startAzurite } from '../test/helpers/azurite.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { percentile, round } from './lib/stats.js';

const DIM = 512;
const PASSAGES = 3;
let sequence = 0;

function passages(memoryId: string): Record<string, unknown>[] {
  return Array.from({ length: PASSAGES }, (_, seq) => ({
    id: `${memoryId}#${seq}`,
    memory_id: memoryId,
    seq,
    text: `${memoryId} part ${seq}`,
    vector: Array.from({ length: DIM }, () => Math.random() - 0.5),
  }));
}

async function preload(db: lancedb.Connection, memories: number): Promise<lancedb.Table> {
  let table: lancedb.Table | null = null;
  for (let done = 0; done < memories; done += 1000) {
    const rows = Array.from({ length: Math.min(1000, memories - done) }, () => passages(`mem_${++sequence}`)).flat();
    if (table) await table.add(rows);
    else table = await db.createTable('chunks', rows);
  }
  if (!table) throw new Error('no rows');
  await table.createIndex('id', { config: lancedb.Index.btree() });
  await table.createIndex('memory_id', { config: lancedb.Index.btree() });
  await table.optimize();
  return table;
}

/** A B pairs: A appends a new memory's passages, B merges them (replacing that memory's); ms of each. */
async function pairs(table: lancedb.Table, count: number): Promise<{ append: number[]; merge: number[] }> {
  const append: number[] = [];
  const merge: number[] = [];
  for (let i = 0; i < count; i++) {
    let started = performance.now();
    await table.add(passages(`mem_${++sequence}`));
    append.push(performance.now() - started);
    const memoryId = `mem_${++sequence}`;
    started = performance.now();
    await table
      .mergeInsert('id')
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where: `memory_id = '${memoryId}'` })
      .execute(passages(memoryId));
    merge.push(performance.now() - started);
  }
  return { append, merge };
}

export async function runPassageWrites(options: { quick?: boolean } = {}): Promise<BenchResult> {
  const started = Date.now();
  const quick = options.quick ?? false;
  const sizes = quick ? [1000, 5000] : [2000, 20_000];
  const count = quick ? 10 : 30;
  const uptime = [execFileSync('uptime').toString().trim()];
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown> = {};
  const run = async (label: string, uri: string, storageOptions: Record<string, string>, memoriesBefore: number) => {
    const db = await lancedb.connect(uri, { storageOptions });
    try {
      const table = await preload(db, memoriesBefore);
      const { append, merge } = await pairs(table, count);
      const a = percentile(append, 50);
      const b = percentile(merge, 50);
      rows.push([label, memoriesBefore, round(a, 1), round(b, 1), round(b / a, 2)]);
      figures[`${label}-${memoriesBefore}`] = { appendP50Ms: round(a, 2), mergeP50Ms: round(b, 2), ratio: round(b / a, 2) };
    } finally {
      db.close();
    }
  };
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'mem-bench-passages-'));
    try {
      await run('local dir', dir, {}, size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const azurite = await startAzurite();
  try {
    await azurite.createContainer('bench');
    process.env.AZURITE_BLOB_STORAGE_URL = azurite.env.AZURITE_BLOB_STORAGE_URL;
    const options = {
      azure_storage_account_name: String(azurite.env.AZURE_STORAGE_ACCOUNT_NAME),
      azure_storage_account_key: String(azurite.env.AZURE_STORAGE_ACCOUNT_KEY),
      azure_storage_use_emulator: 'true',
      allow_http: 'true',
    };
    await run('Azurite', `az://bench/passages-${Date.now()}`, options, sizes[0] as number);
  } finally {
    await azurite.stop();
  }
  uptime.push(execFileSync('uptime').toString().trim());
  const tables: Table[] = [
    {
      title: `Passage writes of one memory (${PASSAGES} passages, ${DIM}-d), p50 ms over ${count} A B pairs`,
      header: ['store', 'memories before', 'append', 'merge (replace in one commit)', 'ratio'],
      rows,
    },
  ];
  return {
    name: 'passage-writes',
    quick,
    seconds: Math.round((Date.now() - started) / 1000),
    figures: { ...figures, uptime },
    tables,
    notes: uptime.map((line, i) => `uptime ${i === 0 ? 'before' : 'after'}: ${line}`),
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runPassageWrites({ quick: values.quick })));
}
