import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLANS } from '../../src/core/accounts/plans.js';
import { DocumentSaves } from '../../src/core/ingest/document-saves.js';
import { IngestService, type IngestServiceDeps } from '../../src/core/ingest/ingest-service.js';
import { MemoryService } from '../../src/core/memory-service.js';
import type { JobItemResult, Storage } from '../../src/core/ports.js';
import type { JobRecord } from '../../src/core/types.js';
import { createDocumentSource, createWebhookSender } from '../../src/ingest/document-source.js';
import type { EmbeddingModel } from '../../src/providers/spec.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { hashVector, testEmbedder } from '../helpers/test-embedder.js';

/**
 * A running job's stored record (every item's text in its payload) is rewritten for progress only on a
 * store other daemons share; on a store of its own its counters are written at status changes, and what
 * readers see comes from the live counters or, for a job a restart interrupted, from its recorded items.
 */
const DIM = 4;
/** Two items per text batch (half of the items in flight), so a job of a few items makes several batches. */
const ITEM_CONCURRENCY = 4;
let dir: string;
let store: LanceStore;
const closers: (() => Promise<void>)[] = [];

/**
 * Deterministic vectors from the text. After `passing` texts every call waits, until `fail()` rejects the
 * waiting ones (the process they ran in is gone).
 */
function holdingEmbedder(passing = Number.POSITIVE_INFINITY): EmbeddingModel & { fail(): void; readonly waiting: number } {
  let embedded = 0;
  let waiting = 0;
  let fail = (): void => undefined;
  const held = new Promise<never>((_resolve, reject) => (fail = () => reject(new Error('the process is gone'))));
  held.catch(() => undefined);
  const model = testEmbedder(DIM, async (texts) => {
    if (embedded + texts.length > passing) {
      waiting += 1;
      await held;
    }
    embedded += texts.length;
    return texts.map((text) => hashVector(text, DIM));
  });
  return {
    ...model,
    get waiting() {
      return waiting;
    },
    fail: () => fail(),
  };
}

function ingestService(storage: Storage, embedder: EmbeddingModel, options: Partial<IngestServiceDeps> = {}): IngestService {
  const memories = new MemoryService({ storage, embedder });
  const ingest = new IngestService({
    storage,
    memories,
    documents: new DocumentSaves(storage, memories),
    source: createDocumentSource({ timeoutMs: 1000, maxBytes: 1000, maxRedirects: 0, allowPrivateNetworks: false }),
    webhooks: createWebhookSender({ allowPrivateNetworks: false }),
    plans: PLANS,
    webhookSecret: async () => 'unused',
    itemConcurrency: ITEM_CONCURRENCY,
    ...options,
  });
  closers.push(() => ingest.close());
  return ingest;
}

const notes = (tenant: string, n: number) => Array.from({ length: n }, (_, i) => ({ content: `${tenant} note ${i}: the ferry to the island leaves at ${i % 12 + 6}.` }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-ingest-progress-'));
  store = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/hash', dimension: DIM } });
});

afterAll(async () => {
  for (const close of closers) await close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('progress writes of a running job', () => {
  // A clock that moves a minute at every reading: every settled batch is past the progress interval, so what
  // is written depends on the store's kind only.
  let clock = Date.now();
  const minuteTicks = () => (clock += 60_000);

  async function putsOfAJob(tenant: string, sharedStore: boolean): Promise<JobRecord[]> {
    const put = vi.spyOn(store.jobs, 'put');
    try {
      const ingest = ingestService(store, holdingEmbedder(), { sharedStore, now: minuteTicks });
      const job = await ingest.submit(tenant, notes(tenant, 8), { turbo: true });
      await ingest.onIdle();
      expect(await store.jobs.get(tenant, job.id)).toMatchObject({ status: 'completed', completed: 8, failed: 0 });
      return put.mock.calls.map(([record]) => record).filter((record) => record.id === job.id);
    } finally {
      put.mockRestore();
    }
  }

  it('on a store of its own, the job record is written at its status changes only', async () => {
    const puts = await putsOfAJob('usr_alone', false);
    expect(puts.map((record) => [record.status, record.completed])).toEqual([
      ['pending', 0],
      ['processing', 0],
      ['completed', 8],
    ]);
  });

  it('on a shared store, its counters are written as batches settle, for the other daemons', async () => {
    const puts = await putsOfAJob('usr_shared', true);
    const progress = puts.filter((record) => record.status === 'processing').map((record) => record.completed);
    // One item per batch on a shared store (several at once): the start, then a write per settled item.
    expect(progress).toHaveLength(1 + 8);
    expect(progress[0]).toBe(0);
    expect(Math.max(...progress)).toBe(8);
    expect(puts.at(-1)).toMatchObject({ status: 'completed', completed: 8 });
  });
});

describe('a job a restart interrupted, on a store of its own', () => {
  it('is counted from its recorded items before and when it runs again, and each item is stored once', async () => {
    const tenant = 'usr_restarted';
    const items = notes(tenant, 12);
    // The first daemon: two batches of two are embedded, then its embeddings wait (the two batches in
    // flight hold there) until the kill, after which none of its writes lands (as a killed process's do not).
    let killed = false;
    const gone = () => Promise.reject(new Error('the process is gone'));
    const firstStorage = new Proxy(store, {
      get(target, name) {
        if (name === 'jobs') return { ...target.jobs, put: (record: JobRecord) => (killed ? gone() : target.jobs.put(record)) };
        if (name === 'jobItems') return { ...target.jobItems, append: (rows: readonly JobItemResult[]) => (killed ? gone() : target.jobItems.append(rows)) };
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as Storage;
    const firstEmbedder = holdingEmbedder(4);
    const first = ingestService(firstStorage, firstEmbedder);
    const job = await first.submit(tenant, items, { turbo: true });
    await vi.waitFor(() => expect(firstEmbedder.waiting).toBe(2), { timeout: 10_000, interval: 10 });
    await vi.waitFor(async () => expect(await store.jobItems.list(tenant, job.id)).toHaveLength(4), { timeout: 10_000, interval: 10 });
    const recorded = 4;
    killed = true;
    firstEmbedder.fail();
    await first.close();

    // What the kill left: the record as the job started (no progress writes), the items recorded so far.
    expect(await store.jobs.get(tenant, job.id)).toMatchObject({ status: 'processing', completed: 0, failed: 0 });

    // The next start, before the job runs again: its status, the jobs list and the job count the items.
    const second = ingestService(store, holdingEmbedder());
    expect((await second.status(tenant, job.id)).job).toMatchObject({ status: 'processing', completed: recorded, failed: 0 });
    expect((await second.list(tenant, 10)).find((listed) => listed.id === job.id)).toMatchObject({ completed: recorded });
    expect(await second.job(tenant, job.id)).toMatchObject({ completed: recorded });

    const put = vi.spyOn(store.jobs, 'put');
    try {
      await second.resume();
      await second.onIdle();
      const writes = put.mock.calls.map(([record]) => record).filter((record) => record.id === job.id);
      expect(writes.map((record) => [record.status, record.completed])).toEqual([
        ['processing', recorded],
        ['completed', items.length],
      ]);
    } finally {
      put.mockRestore();
    }
    expect(await store.jobs.get(tenant, job.id)).toMatchObject({ status: 'completed', completed: items.length, failed: 0 });
    const view = await second.status(tenant, job.id);
    expect(view.errors).toEqual([]);
    expect(new Set(view.documents).size).toBe(items.length);
    // Each item once: an item saved twice would have a second memory row under its id.
    const ids = [...view.documents];
    expect((await store.memories(tenant).existingIds(ids)).sort()).toEqual([...ids].sort());
  });
});
