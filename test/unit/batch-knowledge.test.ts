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

/** An inline extractor naming one person in every note, with the alias, mentions and property the note gives. */
const scriptedExtractor: Extractor = {
  provider: 'test',
  modelId: 'test/scripted',
  inline: true,
  close: async () => undefined,
  extract: async (request: ExtractRequest): Promise<Extraction> => {
    const [alias = '', mentions = '1', city = ''] = request.text.split('|');
    return {
      entities: [
        { name: 'Maya Lopez', type: 'person', aliases: alias ? [alias] : [], properties: city ? { city } : {}, mentions: Number(mentions) },
        { name: 'Harbour Office', type: 'company', aliases: [], properties: {}, mentions: 1 },
      ],
      facts: [],
      relationships: [],
    };
  },
};

describe('an entity named by every memory of a batch', () => {
  it('comes out as it does when the same memories are saved one at a time', async () => {
    const knowledge = new KnowledgeService({ storage: store, extractor: scriptedExtractor, queue });
    const memories = new MemoryService({ storage: store, embedder, knowledge });
    const aliases = ['', 'Maya', 'M. Lopez', 'maya', 'Dr Maya Lopez'];
    const cities = ['', 'Lisbon', 'Porto'];
    // Out of time order (ties between memories go by their ids, which differ between the two accounts: the
    // property test of entity-tally.test.ts covers them).
    const notes = Array.from({ length: 40 }, (_, i) => ({
      content: `${aliases[i % aliases.length]}|${1 + (i % 3)}|${cities[i % cities.length]}|note ${i}`,
      createdAt: Date.UTC(2026, 0, 1) + ((i * 7) % 40) * 60_000,
    }));
    const batched = await memories.saveMany('usr_batched', notes);
    expect(batched.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    for (const note of notes) await memories.save('usr_single', note);

    const visible = async (account: string) => {
      const [entity] = (await store.knowledge(account).listEntities({ type: 'person', sortBy: 'mentions', limit: 1, offset: 0 })).items;
      if (!entity) throw new Error(`no entity in ${account}`);
      const contents = new Map((await store.memories(account).getMany(entity.relatedDocuments)).map((memory) => [memory.id, memory.content]));
      return {
        name: entity.name,
        aliases: entity.aliases,
        mentions: entity.mentions,
        properties: entity.properties,
        firstSeen: entity.firstSeen,
        lastSeen: entity.lastSeen,
        related: entity.relatedDocuments.map((id) => contents.get(id)),
        contributions: Object.entries((await store.knowledge(account).contributionsOf([entity.id])).get(entity.id) ?? {})
          .map(([id, contribution]) => ({ content: contents.get(id), ...contribution }))
          .sort((a, b) => String(a.content).localeCompare(String(b.content))),
      };
    };
    const single = await visible('usr_single');
    expect(single.related).toHaveLength(notes.length);
    expect(await visible('usr_batched')).toEqual(single);

    // Forgetting memories, many at once or one at a time, leaves what the rest alone would have made.
    const byContent = async (account: string) => new Map((await store.memories(account).list({}, { limit: 100, offset: 0 })).items.map((memory) => [memory.content, memory.id]));
    const forgotten = notes.filter((_, i) => i % 3 === 0).map((note) => note.content);
    const batchedIds = await byContent('usr_batched');
    const singleIds = await byContent('usr_single');
    expect((await memories.deleteMany('usr_batched', forgotten.map((content) => batchedIds.get(content) as string))).deleted).toHaveLength(forgotten.length);
    for (const content of forgotten) await memories.delete('usr_single', singleIds.get(content) as string);
    for (const note of notes.filter((_, i) => i % 3 !== 0)) await memories.save('usr_rest', note);
    const rest = await visible('usr_rest');
    expect(rest.related).toHaveLength(notes.length - forgotten.length);
    expect(await visible('usr_batched')).toEqual(rest);
    expect(await visible('usr_single')).toEqual(rest);
  });
});

describe('a batch of new memories that share their millisecond', () => {
  it('adds each one to the entity from its tally, without reading the entity\'s contributions', async () => {
    // Counts the reads of all of an entity's contributions (what a memory applied after a later one needs).
    let reads = 0;
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'knowledge') return Reflect.get(target, property, receiver);
        return (account: string) => {
          const knowledge = target.knowledge(account);
          return new Proxy(knowledge, {
            get(inner, name, innerReceiver) {
              const value = Reflect.get(inner, name, innerReceiver) as unknown;
              if (name !== 'contributionsOf' || typeof value !== 'function') return typeof value === 'function' ? value.bind(inner) : value;
              return (...args: unknown[]) => {
                reads += 1;
                return (value as (...a: unknown[]) => unknown).apply(inner, args);
              };
            },
          });
        };
      },
    });
    const knowledge = new KnowledgeService({ storage: counted, extractor: scriptedExtractor, queue });
    const memories = new MemoryService({ storage: counted, embedder, knowledge });
    const account = 'usr_same_ms';
    await memories.save(account, { content: '|1||first note', createdAt: Date.UTC(2026, 1, 1) });
    // One millisecond for all: their ids (a time and a random part) sort in no particular order against the
    // order the saves were made in.
    const createdAt = Date.UTC(2026, 1, 2);
    const notes = Array.from({ length: 30 }, (_, i) => ({ content: `${i % 2 ? 'Maya' : ''}|1||note ${i}`, createdAt }));
    reads = 0;
    const outcomes = await memories.saveMany(account, notes);
    expect(outcomes.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(reads).toBe(0);
    const [entity] = (await store.knowledge(account).listEntities({ type: 'person', sortBy: 'mentions', limit: 1, offset: 0 })).items;
    expect(entity?.relatedDocuments).toHaveLength(31);
    expect(entity?.relatedDocuments).toEqual([...(entity?.relatedDocuments ?? [])].sort());
  });
});
