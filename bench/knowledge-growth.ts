/**
 * What a standard save's knowledge costs as the store grows: the same batches of saves, measured again each
 * time the store holds another `--every` memories. In a person's store a few names come back in a large
 * share of the notes (their own, a partner's, an employer's): here every note is a line of a log written by
 * one person ("Maya Lopez: ..."), so her entity is named by every memory, as a speaker is in a chat log, and
 * the bench's other names by their share of the generator's notes.
 *
 * The extractions are the built-in extractor's, computed before anything is timed and replayed by an inline
 * extractor, and the vectors come from a hash of the text (8 dimensions): what is timed is the store and the
 * knowledge service, not the models. At each step it also times two reads: her entity found by name (as ask
 * and `mem entities` find it) and the 20 entities most mentioned (the median of five, the timed saves paused).
 *
 *   node --import tsx bench/knowledge-growth.ts [--memories 8000] [--every 1000] [--batch 64]
 *
 * Writes bench/results/knowledge-growth.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { KnowledgeService } from '../src/core/knowledge/knowledge-service.js';
import { MemoryService } from '../src/core/memory-service.js';
import { JobQueue } from '../src/jobs/job-queue.js';
import { BuiltinExtractor } from '../src/providers/builtin/builtin-extractor.js';
import type { Extraction, Extractor, ExtractRequest } from '../src/providers/spec.js';
import { openLanceStore } from '../src/store/lancedb/lancedb-store.js';
import { testEmbedder } from '../test/helpers/test-embedder.js';
import { createNoteGenerator } from './lib/notes.js';
import { writeJson } from './lib/report.js';
import { percentile, round, timed } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '8000' },
    every: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '64' },
  },
});
const total = Number(values.memories);
const every = Number(values.every);
const batchSize = Number(values.batch);
const ACCOUNT = 'usr_growth';
const OWNER = 'Maya Lopez';
const DIM = 8;

const embedder = testEmbedder(DIM);

const notes = createNoteGenerator(20261129);
const started = Date.UTC(2025, 0, 1);
const items = Array.from({ length: total }, (_, i) => ({ content: `${OWNER}: ${notes.note().content}`, createdAt: started + i * 60_000 }));

process.stderr.write(`extracting ${total} notes (not timed)\n`);
const builtin = new BuiltinExtractor();
await builtin.init();
const extractions = new Map<string, Extraction>();
for (const item of items) extractions.set(item.content, await builtin.extract({ text: item.content, referenceTime: item.createdAt }));
await builtin.close();

const replay: Extractor = {
  provider: 'bench',
  modelId: 'bench/replay',
  inline: true,
  close: async () => undefined,
  extract: async (request: ExtractRequest) => {
    const extraction = extractions.get(request.text);
    if (!extraction) throw new Error('no extraction for this text');
    return extraction;
  },
};

const dir = mkdtempSync(join(tmpdir(), 'mem-knowledge-growth-'));
const store = await openLanceStore({ uri: dir, vectorSpace: { modelId: embedder.modelId, dimension: DIM } });
const queue = new JobQueue(1);
const knowledge = new KnowledgeService({ storage: store, extractor: replay, queue });
const memories = new MemoryService({ storage: store, embedder, knowledge });

interface Window {
  readonly memories: number;
  readonly ownerMemories: number;
  readonly msPerItem: number;
  readonly cpuMsPerItem: number;
  readonly mainBusyShare: number;
  /** Median ms of reading her entity by name (as ask and `mem entities` do), and of the top 20 entities. */
  readonly readOwnerMs: number;
  readonly readTopMs: number;
}

/** Median ms of five runs of `read`, after one not counted. */
async function medianMs(read: () => Promise<unknown>): Promise<number> {
  await read();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await timed(read)).ms);
  return round(percentile(times, 50), 2);
}

const windows: Window[] = [];
let windowStart = performance.now();
let cpuStart = process.cpuUsage();
let eluStart = performance.eventLoopUtilization();
let inWindow = 0;
for (let i = 0; i < total; i += batchSize) {
  const batch = items.slice(i, i + batchSize);
  const outcomes = await memories.saveMany(
    ACCOUNT,
    batch.map((item) => ({ content: item.content, createdAt: item.createdAt })),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  await knowledge.idle();
  inWindow += batch.length;
  if (inWindow >= every || i + batchSize >= total) {
    const ms = performance.now() - windowStart;
    const cpu = process.cpuUsage(cpuStart);
    const elu = performance.eventLoopUtilization(eluStart);
    const [owner] = await knowledge.findEntities(ACCOUNT, OWNER);
    const readOwnerMs = await medianMs(() => knowledge.findEntities(ACCOUNT, OWNER));
    const readTopMs = await medianMs(() => knowledge.listEntities(ACCOUNT, { sortBy: 'mentions', limit: 20, offset: 0 }));
    const window: Window = {
      memories: Math.min(total, i + batchSize),
      ownerMemories: owner?.relatedDocuments.length ?? 0,
      msPerItem: round(ms / inWindow, 2),
      cpuMsPerItem: round((cpu.user + cpu.system) / 1000 / inWindow, 2),
      mainBusyShare: round(elu.utilization, 2),
      readOwnerMs,
      readTopMs,
    };
    windows.push(window);
    process.stderr.write(
      `  ${window.memories} memories (${OWNER} in ${window.ownerMemories}): ${window.msPerItem} ms per item, CPU ${window.cpuMsPerItem} ms, main thread busy ${window.mainBusyShare}; reads ${readOwnerMs} / ${readTopMs} ms\n`,
    );
    windowStart = performance.now();
    cpuStart = process.cpuUsage();
    eluStart = performance.eventLoopUtilization();
    inWindow = 0;
  }
}

await queue.close();
await store.close();
rmSync(dir, { recursive: true, force: true });

const first = windows[0];
const last = windows[windows.length - 1];
console.log(`\nStandard saves in batches of ${batchSize}, the knowledge of ${total} notes (${OWNER} named by each)\n`);
console.log('| memories stored | memories naming her | ms per item | CPU ms per item | main thread busy | read her entity, ms | read the top 20, ms |');
console.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const w of windows) console.log(`| ${w.memories} | ${w.ownerMemories} | ${w.msPerItem} | ${w.cpuMsPerItem} | ${w.mainBusyShare} | ${w.readOwnerMs} | ${w.readTopMs} |`);
if (first && last) console.log(`\nlast window / first window: ${round(last.msPerItem / first.msPerItem, 2)}x the time per item`);

const path = writeJson('knowledge-growth.json', { date: new Date().toISOString(), node: process.version, memories: total, every, batch: batchSize, windows });
console.log(`\nwrote ${path}`);
