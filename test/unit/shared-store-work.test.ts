import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsyncSaves } from '../../src/core/async-saves.js';
import { AuthService } from '../../src/core/auth-service.js';
import { StoreLeases, type Leases } from '../../src/core/cluster/leases.js';
import { newId } from '../../src/core/ids.js';
import { KnowledgeService } from '../../src/core/knowledge/knowledge-service.js';
import { PLANS } from '../../src/core/accounts/plans.js';
import { DocumentSaves } from '../../src/core/ingest/document-saves.js';
import { IngestService } from '../../src/core/ingest/ingest-service.js';
import { createDocumentSource, createWebhookSender } from '../../src/ingest/document-source.js';
import { MemoryService } from '../../src/core/memory-service.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import type { Extraction, Extractor, ExtractRequest } from '../../src/providers/spec.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { testEmbedder } from '../helpers/test-embedder.js';

/**
 * Background work of two daemons on one store, each with its own handle on one directory (as two daemons
 * on one object store hold theirs; the directory commits conditionally too), and the crash states a killed
 * daemon leaves behind, written exactly: what the next attempt must finish without duplicates.
 */
const DIM = 4;
const ACCOUNT = 'usr_shared';
let dir: string;
const stores: LanceStore[] = [];
const closers: (() => Promise<void> | void)[] = [];

/** Deterministic vectors from the text: enough for counting passages. */
const embedder = testEmbedder(DIM);

const first = () => stores[0] as LanceStore;
const second = () => stores[1] as LanceStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-shared-work-'));
  // Opened at once, as two daemons starting together on a fresh store.
  stores.push(
    ...(await Promise.all(
      [0, 1].map(() => openLanceStore({ uri: dir, vectorSpace: { modelId: embedder.modelId, dimension: DIM }, shared: { readConsistencyMs: 0 } })),
    )),
  );
});

afterAll(async () => {
  for (const close of closers) await close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function leasesOf(store: LanceStore, leaseMs = 60_000): StoreLeases {
  const leases = new StoreLeases({ store: store.leaseStore, leaseMs });
  closers.push(() => leases.close());
  return leases;
}

/** The passages table as LanceDB holds it (the test plays the crash the store itself never writes). */
async function chunksTable(): Promise<lancedb.Table> {
  const db = await lancedb.connect(dir);
  const name = (await db.tableNames()).find((table) => table.startsWith('chunks'));
  if (!name) throw new Error('no passages table');
  return db.openTable(name);
}

async function passagesOf(memoryId: string): Promise<{ seq: number }[]> {
  const rows = await (await chunksTable()).query().where(`memory_id = '${memoryId}'`).select(['seq']).toArray();
  return rows.map((row) => ({ seq: Number((row as { seq: number }).seq) }));
}

describe('two daemons starting on a fresh store at once', () => {
  it('create one owner and one first key between them', async () => {
    const services = [first(), second()].map(
      (store) => new AuthService(store, Date.now, { leases: leasesOf(store), readConsistencyMs: 0 }),
    );
    const results = await Promise.all(services.map((service) => service.bootstrap()));
    expect(results.filter((result) => result.firstKey !== null)).toHaveLength(1);
    expect(results[0]?.account.id).toBe(results[1]?.account.id);
    const owners = (await first().accounts.list()).filter((account) => account.isOwner);
    expect(owners).toHaveLength(1);
    expect(await first().keys.listForAccount(owners[0]?.id as string)).toHaveLength(1);
    // A later start finds that owner and creates nothing.
    expect((await services[1]?.bootstrap())?.firstKey).toBeNull();
  });
});

describe('a save repeated after a crash', () => {
  const memories = () => new MemoryService({ storage: first(), embedder });
  const content = `${'A long note about the harbour master and the night ferry schedule. '.repeat(40)}`;

  function asyncSaves() {
    const queue = new JobQueue(1);
    closers.push(() => queue.close());
    return { saves: new AsyncSaves(first(), memories(), queue, Date.now, leasesOf(first())), queue };
  }

  /** This daemon's ingest service on the first handle (closed after the tests). */
  function ingestService(leases: Leases, options: { readonly sharedStore?: boolean } = {}): IngestService {
    const ingest = new IngestService({
      storage: first(),
      memories: memories(),
      documents: new DocumentSaves(first(), memories()),
      source: createDocumentSource({ timeoutMs: 1000, maxBytes: 1000, maxRedirects: 0, allowPrivateNetworks: false }),
      webhooks: createWebhookSender({ allowPrivateNetworks: false }),
      plans: PLANS,
      webhookSecret: async () => 'unused',
      leases,
      ...options,
    });
    closers.push(() => ingest.close());
    return ingest;
  }

  /** The killed daemon had accepted the save and marked it processing. */
  async function acceptedSave(content: string): Promise<string> {
    const documentId = newId('memory');
    const now = Date.now();
    await first().pendingSaves.put({ id: newId('pendingSave'), accountId: ACCOUNT, status: 'processing', documentId, error: null, request: JSON.stringify({ content }), createdAt: now, updatedAt: now });
    return documentId;
  }

  it('an async save resumed after a kill that left passages without their memory stores each passage once', async () => {
    const documentId = await acceptedSave(content);
    // The crash: the passages' commit landed, the memory's did not.
    await memories().save(ACCOUNT, { content, id: documentId });
    const expected = (await passagesOf(documentId)).length;
    expect(expected).toBeGreaterThan(1);
    const db = await lancedb.connect(dir);
    await (await db.openTable('memories')).delete(`id = '${documentId}'`);
    expect(await first().memories(ACCOUNT).get(documentId)).toBeNull();

    const { saves, queue } = asyncSaves();
    await saves.resume();
    await queue.onIdle();
    expect(await first().memories(ACCOUNT).existingIds([documentId])).toEqual([documentId]);
    const passages = await passagesOf(documentId);
    expect(passages).toHaveLength(expected);
    expect(new Set(passages.map((passage) => passage.seq)).size).toBe(expected);
  });

  it('an ingest job taken over after a kill that left an item\'s passages without its memory stores each passage once', async () => {
    const ids = [newId('memory'), newId('memory')];
    const items = ids.map((_, i) => ({ content: `${content} Item ${i}.` }));
    const orphan = ids[0] as string;
    // The crash: the first item's passages landed, its memory did not; the second item never started.
    await memories().save(ACCOUNT, { content: items[0]?.content as string, id: orphan });
    const expected = (await passagesOf(orphan)).length;
    await (await (await lancedb.connect(dir)).openTable('memories')).delete(`id = '${orphan}'`);
    const now = Date.now();
    const jobId = newId('job');
    await first().jobs.put({ id: jobId, accountId: ACCOUNT, kind: 'ingest', status: 'processing', total: 2, completed: 0, failed: 0, error: null, payload: JSON.stringify({ items, ids, options: {} }), createdAt: now, startedAt: now, finishedAt: null });

    const ingest = ingestService(leasesOf(first()));
    await ingest.resume();
    // Right after resume() the job still waits for its account's read: onIdle() must let that read happen.
    await ingest.onIdle();
    expect(await first().jobs.get(ACCOUNT, jobId)).toMatchObject({ status: 'completed', completed: 2, failed: 0 });
    const passages = await passagesOf(orphan);
    expect(passages).toHaveLength(expected);
    expect(new Set(passages.map((passage) => passage.seq)).size).toBe(expected);
    expect(await first().memories(ACCOUNT).existingIds(ids)).toHaveLength(2);
  });

  it('an orphaned ingest job found again while this daemon is still claiming it runs once (the adoption timer)', async () => {
    // A plan that runs several jobs at once: with one at a time the second run would only queue behind the first.
    const tenant = 'usr_adopting';
    await first().accounts.create({ id: tenant, email: '', name: 'n', company: '', tier: 'enterprise', createdAt: 1, settings: { defaultSpace: '', timezone: 'UTC', language: 'en' }, isOwner: false });
    const ids = [newId('memory'), newId('memory'), newId('memory')];
    const items = ids.map((_, i) => ({ content: `Adopted note ${i}: the ferry leaves at ${i + 6}.` }));
    const now = Date.now();
    const jobId = newId('job');
    await first().jobs.put({ id: jobId, accountId: tenant, kind: 'ingest', status: 'processing', total: 3, completed: 0, failed: 0, error: null, payload: JSON.stringify({ items, ids, options: {} }), createdAt: now, startedAt: now, finishedAt: null });
    // This daemon's claims wait until released: the job stays between the queue and its run meanwhile.
    const leases = leasesOf(first());
    let release = (): void => undefined;
    const claimed = new Promise<void>((resolve) => (release = resolve));
    let claimRequested = (): void => undefined;
    const requested = new Promise<void>((resolve) => (claimRequested = resolve));
    let claims = 0;
    const slow: Leases = {
      claim: async (name) => {
        claims += 1;
        claimRequested();
        await claimed;
        return leases.claim(name);
      },
      heldElsewhere: (name) => leases.heldElsewhere(name),
    };
    const ingest = ingestService(slow, { sharedStore: true });
    await ingest.resume();
    // The run now waits for its claim; look again, as the adoption timer does every half lease, and give a
    // second run (were it started) the time to reach its own claim.
    await requested;
    await ingest.resume();
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await ingest.onIdle();
    expect(await first().jobs.get(tenant, jobId)).toMatchObject({ status: 'completed', completed: 3, failed: 0 });
    // Each item once: a second run would have appended every memory row again under the same id.
    expect((await first().memories(tenant).existingIds(ids)).sort()).toEqual([...ids].sort());
    expect(claims).toBe(1);
  });

  it('deletePassages removes only the passages of the ids given, and reports which had any', async () => {
    const kept = await memories().save(ACCOUNT, { content: 'The lighthouse lamp was cleaned on Tuesday.' });
    const orphan = newId('memory');
    await memories().save(ACCOUNT, { content: 'The ferry left at dawn.', id: orphan });
    const store = first().memories(ACCOUNT);
    expect(await store.deletePassages([orphan, newId('memory')])).toEqual([orphan]);
    expect(await passagesOf(orphan)).toEqual([]);
    expect((await passagesOf(kept.id)).length).toBeGreaterThan(0);
    expect(await store.deletePassages([])).toEqual([]);
  });

  it('an async save resumed after a kill finishes a memory that has no vectors instead of counting it done', async () => {
    const input = { content: 'The tide table for the north pier, copied from the harbour office.' };
    const documentId = await acceptedSave(input.content);
    // The crash: the memory's commit landed, its passages' did not.
    await memories().save(ACCOUNT, { ...input, id: documentId });
    await (await chunksTable()).delete(`memory_id = '${documentId}'`);
    expect(await first().memories(ACCOUNT).idsWithVectors([documentId])).toEqual([]);

    const { saves, queue } = asyncSaves();
    expect(await saves.resume()).toBeGreaterThanOrEqual(1);
    await queue.onIdle();
    expect((await first().pendingSaves.unfinished()).filter((entry) => entry.documentId === documentId)).toEqual([]);
    expect(await first().memories(ACCOUNT).idsWithVectors([documentId])).toEqual([documentId]);
    expect(await first().memories(ACCOUNT).existingIds([documentId])).toEqual([documentId]);
  });
});

/** An Ollama-like extractor (not inline) that counts its calls; `hang` does not answer, as a killed daemon's. */
function countingExtractor(hang = false): Extractor & { calls: string[] } {
  const calls: string[] = [];
  return {
    provider: 'test',
    modelId: 'test/extractor',
    inline: false,
    calls,
    close: async () => undefined,
    extract: (request: ExtractRequest): Promise<Extraction> => {
      calls.push(request.text);
      // Never answers while it runs (closing its queue at the end of the file aborts it).
      if (hang) return new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      return Promise.resolve({ entities: [{ name: 'Harbour Office', type: 'company', aliases: [], properties: {}, mentions: 1 }], facts: [], relationships: [] });
    },
  };
}

describe('background extraction on two daemons', () => {
  function knowledgeOn(store: LanceStore, extractor: Extractor, leaseMs: number) {
    const queue = new JobQueue(1);
    const leases = leasesOf(store, leaseMs);
    closers.push(() => queue.close());
    return { service: new KnowledgeService({ storage: store, extractor, queue, leases }), queue, leases };
  }

  async function pendingMemory(content: string): Promise<string> {
    const memory = await new MemoryService({ storage: first(), embedder }).save(ACCOUNT, { content, turbo: true });
    await first().knowledge(ACCOUNT).putStatus({ memoryId: memory.id, status: 'pending', error: null, model: 'test/extractor', attempts: 0, updatedAt: Date.now(), entities: 0, facts: 0 });
    return memory.id;
  }

  it('both daemons resuming the same pending extractions run each once', async () => {
    const ids = await Promise.all([1, 2, 3].map((i) => pendingMemory(`Note ${i} from the harbour office about pier ${i}.`)));
    const extractors = [countingExtractor(), countingExtractor()] as const;
    const a = knowledgeOn(first(), extractors[0], 60_000);
    const b = knowledgeOn(second(), extractors[1], 60_000);
    await Promise.all([a.service.resume([ACCOUNT]), b.service.resume([ACCOUNT]), a.service.resume([ACCOUNT])]);
    await Promise.all([a.queue.onIdle(), b.queue.onIdle()]);
    const extracted = [...extractors[0].calls, ...extractors[1].calls];
    expect(extracted).toHaveLength(ids.length);
    for (const id of ids) {
      const memory = await first().memories(ACCOUNT).get(id);
      expect(extracted.filter((text) => text === memory?.content), id).toHaveLength(1);
      expect((await first().knowledge(ACCOUNT).getStatus(id))?.status).toBe('completed');
    }
  });

  it('an extraction whose daemon died is taken over once its lease expires, and not before', async () => {
    const id = await pendingMemory('The night ferry was delayed by fog at the harbour office.');
    const deadExtractor = countingExtractor(true);
    const dead = knowledgeOn(first(), deadExtractor, 1000);
    await dead.service.resume([ACCOUNT]);
    await waitUntil(() => deadExtractor.calls.length === 1);
    dead.leases.close(); // killed: no more renewals, the extraction never answers

    const liveExtractor = countingExtractor();
    const live = knowledgeOn(second(), liveExtractor, 1000);
    await live.service.resume([ACCOUNT]);
    await live.queue.onIdle();
    expect(liveExtractor.calls).toHaveLength(0); // the lease is still the dead daemon's
    await waitUntil(async () => {
      await live.service.resume([ACCOUNT]);
      await live.queue.onIdle();
      return liveExtractor.calls.length > 0;
    }, 10_000);
    expect(liveExtractor.calls).toHaveLength(1);
    expect((await first().knowledge(ACCOUNT).getStatus(id))?.status).toBe('completed');
    // Finished: a later look for unfinished work finds nothing to run.
    await live.service.resume([ACCOUNT]);
    await live.queue.onIdle();
    expect(liveExtractor.calls).toHaveLength(1);
  }, 20_000);
});

async function waitUntil(done: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
