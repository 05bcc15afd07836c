import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeService } from '../../src/core/knowledge/knowledge-service.js';
import { MemoryService } from '../../src/core/memory-service.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import type { Extraction, Extractor, ExtractRequest } from '../../src/providers/spec.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { testEmbedder } from '../helpers/test-embedder.js';

/**
 * A batch of standard saves (bulk ingest, a first scan) hands its extractions to the knowledge service
 * together, however their extractions finish: one knowledge batch, so one commit of each knowledge table,
 * not a batch for the first ones to finish and more for those finishing meanwhile.
 */
const DIM = 4;
const ACCOUNT = 'usr_batch';
let dir: string;
let store: LanceStore;
const queue = new JobQueue(1);

const embedder = testEmbedder(DIM, async (texts) => texts.map((text) => Float32Array.from({ length: DIM }, (_, i) => (text.charCodeAt(i % text.length) % 7) + 1)));

/** An inline extractor whose answers the test releases one at a time. */
function heldExtractor(): Extractor & { release(): boolean; waiting(): number } {
  const held: { text: string; resolve: (extraction: Extraction) => void }[] = [];
  return {
    provider: 'test',
    modelId: 'test/held',
    inline: true,
    close: async () => undefined,
    extract: (request: ExtractRequest) =>
      new Promise<Extraction>((resolve) => {
        held.push({ text: request.text, resolve });
      }),
    release() {
      const next = held.shift();
      if (!next) return false;
      const name = next.text.split(' ')[0] as string;
      next.resolve({ entities: [{ name, type: 'person', aliases: [], properties: {}, mentions: 1 }], facts: [], relationships: [] });
      return true;
    },
    waiting: () => held.length,
  };
}

const versions = (table: string) => readdirSync(join(dir, `${table}.lance`, '_versions')).length;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-batch-knowledge-'));
  store = await openLanceStore({ uri: dir, vectorSpace: { modelId: embedder.modelId, dimension: DIM }, maintainEveryWrites: 0, compactSearchTablesEvery: 0 });
});

afterAll(async () => {
  await queue.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a batch of standard saves', () => {
  it('applies its extractions as one knowledge batch when they finish one by one', async () => {
    const extractor = heldExtractor();
    const knowledge = new KnowledgeService({ storage: store, extractor, queue });
    const memories = new MemoryService({ storage: store, embedder, knowledge });
    const names = ['Alice', 'Bruno', 'Chiara', 'Dmitri', 'Esther', 'Farid'];
    const before = { entities: versions('entities'), statuses: versions('extraction_status') };

    const saving = memories.saveMany(
      ACCOUNT,
      names.map((name) => ({ content: `${name} wrote the quarterly plan for the harbour office.` })),
    );
    // Each extraction finishes on its own turn of the event loop, with the memories' commits done between.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (extractor.waiting() === 0) break;
      extractor.release();
    }
    const outcomes = await saving;

    expect(outcomes.map((outcome) => outcome.status)).toEqual(names.map(() => 'fulfilled'));
    const entities = await store.knowledge(ACCOUNT).listEntities({ sortBy: 'name', limit: 100, offset: 0 });
    expect(entities.items.map((entity) => entity.name).sort()).toEqual([...names].sort());
    // One commit of the entities and of the extraction statuses for the whole batch.
    expect(versions('entities') - before.entities).toBe(1);
    expect(versions('extraction_status') - before.statuses).toBe(1);
  });
});
