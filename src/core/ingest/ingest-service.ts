import { MemError } from '../../errors.js';
import { JobQueue } from '../../jobs/job-queue.js';
import type { BackgroundPace } from '../scheduling/background-pace.js';
import { inBackground } from '../scheduling/priority.js';
import type { PlanTable } from '../accounts/plans.js';
import { accountOfTenant } from '../accounts/tenancy.js';
import { newId } from '../ids.js';
import { assertCreatedAt, type MemoryService } from '../memory-service.js';
import type { JobItemResult, Storage } from '../ports.js';
import type { Account, JobRecord } from '../types.js';
import type { Leases } from '../cluster/leases.js';
import type { DocumentSaves } from './document-saves.js';
import { fileBatches } from './file-batches.js';
import type { DocumentSource, IngestItem, WatchedFileRef, WatchedFileSaver, WebhookAttempt, WebhookSender } from './types.js';

/**
 * Items in flight across all jobs (`ingest.concurrency`): two text batches. Text items cost little memory,
 * and many in flight keep the embedder's queue full.
 */
const DEFAULT_ITEM_CONCURRENCY = 256;
/** URL fetches and file reads at once (each may hold a body of up to `ingest.maxFetchBytes`). */
const FETCH_CONCURRENCY = 8;
/**
 * A first scan's files go in batches (file-batches.ts; WatchedFileSaver.saveFiles: one lookup query per
 * batch, the new files of each piece the pace grants created together, as text items are), two batches at
 * once: the next batch's lookup and reads overlap the last one's saves.
 */
const FILE_BATCHES_AT_ONCE = 2;
/**
 * Text items go in batches too (MemoryService.saveMany: one embedding call, one commit per table, one
 * knowledge batch, one job items commit), at most this many items each; the item concurrency is split into
 * such batches (two at once: the next one's models work while the last one commits). What a batch costs
 * beyond the models is mostly per commit and per query (LanceDB writes a fragment and a manifest per commit,
 * and the knowledge batch reads the entities, facts and edges it touches once), so larger batches spend
 * less of the two cores on storage per item (128 against 64: bench/README.md, "Batches of 128"); while
 * requests run, the pace still hands a batch out in pieces of at most its yielding size
 * (DEFAULT_PACE.yielding), so what people wait on is unchanged.
 */
const TEXT_BATCH = 128;
/**
 * On a store other daemons share, a running job's counters are written at most this often, for them to read
 * (a status poll or the jobs list that reaches another daemon). On a store of its own nobody reads them, so
 * they are not written between the job's status changes: this daemon answers its status, the jobs list and
 * GET /v1/jobs/:id from the live counters, and a job a restart interrupted counts its recorded items (see
 * `counted`). A write replaces the job's whole record, every item's text included, and is one more commit
 * beside the batches' own.
 */
const PROGRESS_WRITE_MS = 5000;

export interface IngestOptions {
  readonly webhook?: string | undefined;
  /** Turbo items: stored and embedded, no extraction (documented addition). */
  readonly turbo?: boolean | undefined;
}

export interface ItemResult {
  readonly index: number;
  readonly success: boolean;
  readonly documentId?: string;
  readonly error?: string;
}

export interface Delivery {
  readonly url: string;
  readonly delivered: boolean | null;
  readonly attempts: readonly WebhookAttempt[];
}

interface JobPayload {
  readonly items: readonly IngestItem[];
  /** Memory ids allocated when the job was accepted: a resumed item that was already stored is found by id. */
  readonly ids: readonly string[];
  readonly options: IngestOptions;
  readonly delivery?: Delivery | undefined;
}

export interface IngestJobView {
  readonly job: JobRecord;
  readonly errors: readonly { index: number; error: string }[];
  readonly documents: readonly string[];
  readonly delivery: Delivery | null;
}

export interface IngestServiceDeps {
  readonly storage: Storage;
  readonly memories: MemoryService;
  readonly documents: DocumentSaves;
  readonly source: DocumentSource;
  readonly webhooks: WebhookSender;
  readonly plans: PlanTable;
  /** The secret that signs an account's webhooks (created when first needed). */
  readonly webhookSecret: (accountId: string) => Promise<string>;
  readonly itemConcurrency?: number;
  /** Saves `file` items (watched folders); without it such items fail. */
  readonly files?: WatchedFileSaver;
  /** Several daemons on one store: a job runs on the daemon that holds its lease (one at a time). */
  readonly leases?: Leases;
  /** The store is shared with other daemons (then text items are saved one at a time, not in batches). */
  readonly sharedStore?: boolean;
  /** Slows items down while interactive requests run (without it, items run at the queues' limits). */
  readonly pace?: BackgroundPace;
  readonly now?: () => number;
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
}

interface Running {
  job: JobRecord;
  /** The job's payload, parsed once (a status poll of a 10k-item job would otherwise parse megabytes). */
  readonly payload: JobPayload;
  lastWrite: number;
  results: Map<number, JobItemResult>;
}

/**
 * Bulk ingest. Synchronous requests are processed at once; asynchronous ones become persisted jobs with
 * per-item results, run by a shared item queue, at most `concurrentJobs` of the plan per account (the others
 * wait as pending). After a crash, unfinished jobs resume after their recorded items, and items stored just
 * before the crash are found by their pre-allocated ids, so none is lost and none stored twice.
 */
export class IngestService {
  private readonly items: JobQueue;
  private readonly fetches: JobQueue;
  private readonly fileBatches: JobQueue;
  private readonly textBatches: JobQueue;
  private readonly textBatchSize: number;
  private readonly controller = new AbortController();
  private readonly waiting: JobRecord[] = [];
  private readonly runningPerAccount = new Map<string, number>();
  private readonly running = new Map<string, Running>();
  /**
   * Jobs taken from the queue and not finished: from the moment pump() starts one, through its lease claim
   * and the read of its record, until run() returns (`running` holds a job only once its items start). A job
   * enqueued again in between (the adoption timer of a shared store looks for orphaned jobs every half lease)
   * would run twice under this daemon's own lease, each run saving the remaining items.
   */
  private readonly taken = new Set<string>();
  private readonly finished = new Set<Promise<void>>();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly deps: IngestServiceDeps) {
    const concurrency = deps.itemConcurrency ?? DEFAULT_ITEM_CONCURRENCY;
    this.items = new JobQueue(concurrency);
    this.fetches = new JobQueue(Math.min(concurrency, FETCH_CONCURRENCY));
    this.fileBatches = new JobQueue(FILE_BATCHES_AT_ONCE);
    // Several daemons on one store: one item per save, as before batches. (Taken-over jobs once stored a
    // batch's items twice in the e2e test; that was the job run twice under one lease, see `taken`.)
    this.textBatchSize = deps.sharedStore ? 1 : Math.max(1, Math.min(TEXT_BATCH, Math.floor(concurrency / 2)));
    this.textBatches = new JobQueue(Math.max(1, Math.floor(concurrency / this.textBatchSize)));
    this.now = deps.now ?? Date.now;
  }

  /** LIMIT_EXCEEDED over the plan's items per request; VALIDATION_ERROR with invalidIndices for empty items. */
  validate(account: Account, items: readonly IngestItem[], options: IngestOptions): void {
    const limit = this.deps.plans[account.tier].ingestItemsPerRequest;
    if (items.length > limit) {
      throw new MemError('LIMIT_EXCEEDED', `Too many items: the ${account.tier} plan allows ${limit.toLocaleString('en-US')} per request, this request has ${items.length.toLocaleString('en-US')}.`, {
        details: { limit, items: items.length },
        hint: 'Split the items into several requests.',
      });
    }
    const invalidIndices = items.flatMap((item, index) => (hasText(item.content) || hasText(item.url) ? [] : [index]));
    if (invalidIndices.length > 0) {
      throw new MemError('VALIDATION_ERROR', `Every item needs content or url; ${invalidIndices.length} do not.`, {
        extra: { invalidIndices },
      });
    }
    const misplaced = items.flatMap((item, index) => (!hasText(item.content) && (item.context !== undefined || item.author !== undefined) ? [index] : []));
    if (misplaced.length > 0) {
      throw new MemError('VALIDATION_ERROR', `context and author apply to content items, not URLs; ${misplaced.length} items have them.`, {
        extra: { invalidIndices: misplaced },
      });
    }
    const now = this.now();
    items.forEach((item, index) => {
      if (item.createdAt === undefined) return;
      try {
        assertCreatedAt(item.createdAt, now);
      } catch (error) {
        if (error instanceof MemError) throw new MemError(error.code, `Item ${index}: ${error.message}`, { extra: { invalidIndices: [index] } });
        throw error;
      }
    });
    if (options.webhook !== undefined) this.deps.webhooks.validate(options.webhook);
  }

  /** async: false. Every item is processed before the response; results in item order. */
  async runNow(tenant: string, items: readonly IngestItem[], options: IngestOptions): Promise<ItemResult[]> {
    const now = this.now();
    const ids = items.map((item) => memoryIdFor(item, now));
    const results: ItemResult[] = [];
    const indices = items.map((_, index) => index);
    const isText = (index: number) => items[index]?.file === undefined && hasText(items[index]?.content);
    await Promise.all([
      ...batchesOf(indices.filter(isText), this.textBatchSize).map((batch) =>
        this.textBatches.run(() =>
          inBackground(() =>
            this.saveTextBatch(tenant, items, ids, batch, options, this.controller.signal, async (settled) => {
              for (const result of settled) results[result.index] = result;
            }),
          ),
        ),
      ),
      ...indices.filter((index) => !isText(index)).map((index) =>
        this.items.run(() => inBackground(async () => {
          results[index] = await this.processItem(tenant, items[index] as IngestItem, ids[index] as string, index, options);
        })),
      ),
    ]);
    // Items a shutdown left unsaved.
    return items.map((_, index) => results[index] ?? { index, success: false, error: 'INTERNAL_ERROR: The daemon is shutting down.' });
  }

  /** async: true. Persists the job (pending) and schedules it. */
  async submit(tenant: string, items: readonly IngestItem[], options: IngestOptions): Promise<JobRecord> {
    const now = this.now();
    const payload: JobPayload = { items, ids: items.map((item) => memoryIdFor(item, now)), options };
    const job: JobRecord = {
      id: newId('job', now),
      accountId: tenant,
      kind: 'ingest',
      status: 'pending',
      total: items.length,
      completed: 0,
      failed: 0,
      error: null,
      payload: JSON.stringify(payload),
      createdAt: now,
      startedAt: null,
      finishedAt: null,
    };
    await this.deps.storage.jobs.put(job);
    this.enqueue(job);
    return job;
  }

  async status(tenant: string, jobId: string): Promise<IngestJobView> {
    const live = this.running.get(jobId);
    const stored = live?.job.accountId === tenant ? live.job : await this.deps.storage.jobs.get(tenant, jobId);
    if (!stored || stored.kind !== 'ingest') throw new MemError('NOT_FOUND', 'Ingest job not found', { details: { jobId } });
    const results = live ? [...live.results.values()] : await this.deps.storage.jobItems.list(tenant, jobId);
    const job = live || !this.countsFromItems(stored) ? stored : withCounts(stored, results);
    const payload = live?.job.accountId === tenant ? live.payload : parsePayload(stored.payload);
    return {
      job,
      errors: results.filter((r) => !r.success).map((r) => ({ index: r.index, error: r.error ?? 'failed' })),
      documents: [...new Set(results.filter((r) => r.success && r.documentId).map((r) => r.documentId as string))],
      delivery: payload.delivery ?? (payload.options.webhook ? { url: payload.options.webhook, delivered: null, attempts: [] } : null),
    };
  }

  /** The account's most recent jobs (ingest and reindex), newest first, with the counters of `counted`. */
  async list(tenant: string, limit: number): Promise<JobRecord[]> {
    const jobs = await this.deps.storage.jobs.list(tenant, limit);
    return Promise.all(jobs.map((job) => this.counted(job)));
  }

  /** One of the account's jobs (ingest or reindex) with the counters of `counted`; NOT_FOUND if it has none of that id. */
  async job(tenant: string, jobId: string): Promise<JobRecord> {
    const live = this.running.get(jobId);
    if (live?.job.accountId === tenant) return live.job;
    const job = await this.deps.storage.jobs.get(tenant, jobId);
    if (!job) throw new MemError('NOT_FOUND', 'Job not found', { details: { jobId } });
    return this.counted(job);
  }

  /** Schedules every unfinished ingest job again (at start-up). */
  async resume(): Promise<number> {
    const jobs = (await this.deps.storage.jobs.unfinished()).filter((job) => job.kind === 'ingest');
    jobs.sort((a, b) => a.createdAt - b.createdAt);
    for (const job of jobs) this.enqueue(job);
    return jobs.length;
  }

  /** Resolves when no job is waiting or running (tests and benchmarks wait on it). */
  async onIdle(): Promise<void> {
    while (this.waiting.length > 0 || this.finished.size > 0) {
      // Jobs waiting and none running: pump() is reading their accounts from the store. Awaiting nothing would
      // loop on microtasks and starve that read (the event loop never turns); wait for a timer turn instead.
      if (this.finished.size === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      else await Promise.all([...this.finished]);
    }
  }

  /** Stops taking items; running jobs stop between items and resume at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.controller.abort();
    this.waiting.length = 0;
    await Promise.allSettled([...this.finished]);
    await this.items.close();
    await this.fetches.close();
    await this.fileBatches.close();
    await this.textBatches.close();
  }

  /** A stored job with the counters a reader should see: live while it runs here (see `countsFromItems`). */
  private async counted(job: JobRecord): Promise<JobRecord> {
    const live = this.running.get(job.id);
    if (live?.job.accountId === job.accountId) return live.job;
    if (!this.countsFromItems(job)) return job;
    return withCounts(job, await this.deps.storage.jobItems.list(job.accountId, job.id));
  }

  /**
   * An ingest job that started, is not finished and does not run here has, on a store of its own, stored
   * counters from its last status change only (a restart interrupted it, and it waits for its turn again):
   * its recorded items are the count, as they are when it runs again. On a shared store it may run on
   * another daemon, which writes its counters as it goes.
   */
  private countsFromItems(job: JobRecord): boolean {
    return !this.deps.sharedStore && job.kind === 'ingest' && job.startedAt !== null && (job.status === 'pending' || job.status === 'processing');
  }

  private enqueue(job: JobRecord): void {
    if (this.closed || this.taken.has(job.id) || this.waiting.some((waiting) => waiting.id === job.id)) return;
    this.waiting.push(job);
    void this.pump();
  }

  /** Starts every waiting job whose account has a free job slot, in order of arrival. */
  private async pump(): Promise<void> {
    for (const job of [...this.waiting]) {
      const accountId = accountOfTenant(job.accountId);
      const account = await this.deps.storage.accounts.get(accountId);
      const limit = account ? this.deps.plans[account.tier].concurrentJobs : 1;
      const busy = this.runningPerAccount.get(accountId) ?? 0;
      if (limit !== null && busy >= limit) continue;
      const at = this.waiting.indexOf(job);
      if (at < 0) continue;
      this.waiting.splice(at, 1);
      this.taken.add(job.id);
      this.runningPerAccount.set(accountId, busy + 1);
      const done: Promise<void> = this.run(job)
        .catch((error: unknown) => this.deps.onError?.(error, { jobId: job.id }))
        .finally(() => {
          this.taken.delete(job.id);
          this.finished.delete(done);
          this.runningPerAccount.set(accountId, (this.runningPerAccount.get(accountId) ?? 1) - 1);
          void this.pump();
        });
      this.finished.add(done);
    }
  }

  /** Runs the job when this daemon gets its lease (at once on a daemon of its own), from the stored state. */
  private async run(listed: JobRecord): Promise<void> {
    const claim = this.deps.leases ? await this.deps.leases.claim(`ingest:${listed.id}`) : null;
    if (this.deps.leases && !claim) return; // another daemon runs it
    try {
      // Read again under the lease: the daemon that held it before may have finished the job meanwhile.
      const initial = claim ? await this.deps.storage.jobs.get(listed.accountId, listed.id) : listed;
      if (!initial || (initial.status !== 'pending' && initial.status !== 'processing')) return;
      await this.runClaimed(
        initial,
        claim ? AbortSignal.any([this.controller.signal, claim.signal]) : this.controller.signal,
        claim ? () => claim.confirm() : async () => true,
      );
    } finally {
      claim?.stop();
    }
  }

  /**
   * `confirm` is asked before each write of an item: on a shared store another daemon takes the job over
   * once this one's lease expires (a killed daemon, or one whose event loop stalled past its renewals), and
   * what this one wrote after that would be written twice.
   */
  private async runClaimed(initial: JobRecord, signal: AbortSignal, confirm: () => Promise<boolean>): Promise<void> {
    const payload = parsePayload(initial.payload);
    const recorded = await this.deps.storage.jobItems.list(initial.accountId, initial.id);
    const results = new Map(recorded.map((result) => [result.index, result]));
    const state: Running = {
      job: { ...withCounts(initial, results.values()), status: 'processing', startedAt: initial.startedAt ?? this.now() },
      payload,
      lastWrite: this.now(),
      results,
    };
    this.running.set(initial.id, state);
    try {
      await this.deps.storage.jobs.put(state.job);
      const remaining = payload.items.map((_, index) => index).filter((index) => !results.has(index));
      // A job that ran before a restart may have stored items it had not recorded yet: those ids are looked
      // up once, together. A fresh job's ids were allocated at acceptance and nothing can be stored under
      // them yet (a lookup per item scanned the growing table: 10k turbo items went at 17 items/s).
      const stored = initial.startedAt !== null ? await this.storedIds(initial.accountId, remaining.map((index) => payload.ids[index] as string)) : new Set<string>();
      const isFile = (index: number) => payload.items[index]?.file !== undefined && this.deps.files !== undefined && !stored.has(payload.ids[index] as string);
      const isText = (index: number) => payload.items[index]?.file === undefined && hasText(payload.items[index]?.content) && !stored.has(payload.ids[index] as string);
      await Promise.all([
        ...fileBatches(remaining.filter(isFile), (index) => payload.items[index]?.file?.size).map((batch) => this.fileBatches.run(() => inBackground(() => this.saveFileBatch(state, batch, signal, confirm)))),
        ...batchesOf(remaining.filter(isText), this.textBatchSize).map((batch) =>
          this.textBatches.run(() =>
            inBackground(() =>
              this.saveTextBatch(
                initial.accountId,
                payload.items,
                payload.ids,
                batch,
                payload.options,
                signal,
                (results) =>
                  // A shutdown (or a lost lease) is not the items' failure: they are saved at the next start.
                  this.recordMany(state, signal.aborted ? results.filter((result) => result.success) : results),
                confirm,
              ),
            ),
          ),
        ),
        ...remaining.filter((index) => !isFile(index) && !isText(index)).map((index) =>
          // Background inside the task: the shared item queue may start it from any caller's context.
          this.items.run(() => inBackground(async () => {
            if (signal.aborted) return;
            const item = payload.items[index] as IngestItem;
            const id = payload.ids[index] as string;
            if (!stored.has(id) && !(await confirm())) return;
            const result = stored.has(id)
              ? { index, success: true, documentId: id }
              : await this.processItem(initial.accountId, item, id, index, payload.options);
            if (signal.aborted && !result.success) return; // a shutdown is not the item's failure
            await this.record(state, result);
          })),
        ),
      ]);
      if (signal.aborted) {
        // On a shutdown the progress is saved for the next run; a lost lease leaves the job to its new holder.
        if (this.controller.signal.aborted) await this.deps.storage.jobs.put(state.job);
        return;
      }
      const allFailed = state.job.total > 0 && state.job.failed === state.job.total;
      state.job = { ...state.job, status: allFailed ? 'failed' : 'completed', finishedAt: this.now(), error: allFailed ? 'Every item failed.' : null };
      await this.deps.storage.jobs.put(state.job);
    } finally {
      this.running.delete(initial.id);
    }
    if (payload.options.webhook && !payload.delivery?.delivered) await this.notify(state.job, payload);
  }

  /**
   * Runs an item's save when the pace allows (interactive requests first). Only the save: a URL's fetch
   * waits on the network, and holding a slot through it would leave none for the job's other items.
   */
  private async paced<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.deps.pace?.acquire();
    try {
      return await work();
    } finally {
      release?.();
    }
  }

  /** A batch of a first scan's file items (WatchedFileSaver.saveFiles), each recorded as it settles. */
  private async saveFileBatch(state: Running, indices: readonly number[], signal: AbortSignal, confirm: () => Promise<boolean>): Promise<void> {
    if (signal.aborted || !this.deps.files || !(await confirm())) return;
    const { payload } = state;
    const files = indices.map((index) => ({ file: payload.items[index]?.file as WatchedFileRef, id: payload.ids[index] as string }));
    const pace = this.deps.pace;
    const settled = await this.deps.files.saveFiles(state.job.accountId, files, {
      ...(pace ? { gate: (wanted: number) => pace.acquireUpTo(wanted) } : {}),
      // Several daemons on one store: each new file is its own save, as text items are (see textBatchSize).
      together: !this.deps.sharedStore,
      beforeCommit: confirm,
    });
    await Promise.all(
      settled.map((outcome, at) => {
        const index = indices[at] as number;
        if (outcome.status === 'rejected' && signal.aborted) return undefined; // a shutdown is not the item's failure
        const result: ItemResult =
          outcome.status === 'fulfilled'
            ? { index, success: true, documentId: outcome.value }
            : { index, success: false, error: failureOf(outcome.reason) };
        return this.record(state, result);
      }),
    );
  }

  /**
   * Text items of a job, in pieces as large as the pace allows (the whole batch while nobody waits on the
   * daemon, a few items while requests run), each piece saved as one batch (MemoryService.saveMany).
   * `onResults` gets each piece's results, in order.
   */
  private async saveTextBatch(
    tenant: string,
    items: readonly IngestItem[],
    ids: readonly string[],
    indices: readonly number[],
    options: IngestOptions,
    signal: AbortSignal,
    onResults: (results: ItemResult[]) => Promise<void>,
    confirm?: () => Promise<boolean>,
  ): Promise<void> {
    let next = 0;
    while (next < indices.length && !signal.aborted) {
      const wanted = indices.length - next;
      const slots = this.deps.pace ? await this.deps.pace.acquireUpTo(wanted) : { granted: wanted, release: () => undefined };
      const piece = indices.slice(next, next + slots.granted);
      next += piece.length;
      let settled: PromiseSettledResult<{ id: string }>[];
      try {
        if (signal.aborted) return;
        settled = await this.deps.memories.saveMany(
          tenant,
          piece.map((index) => {
            const item = items[index] as IngestItem;
            return {
              content: item.content as string,
              title: item.title,
              tags: item.tags,
              metadata: item.metadata,
              spaceId: item.spaceId,
              context: item.context,
              author: item.author,
              turbo: options.turbo,
              id: ids[index] as string,
              createdAt: item.createdAt,
            };
          }),
          confirm ? { beforeCommit: confirm } : {},
        );
      } finally {
        slots.release();
      }
      await onResults(
        settled.map((outcome, at): ItemResult => {
          const index = piece[at] as number;
          return outcome.status === 'fulfilled' ? { index, success: true, documentId: outcome.value.id } : { index, success: false, error: failureOf(outcome.reason) };
        }),
      );
    }
  }

  private record(state: Running, result: ItemResult): Promise<void> {
    return this.recordMany(state, [result]);
  }

  /** Records settled items: their rows in one append (one commit), the job's counters, progress now and then. */
  private async recordMany(state: Running, results: readonly ItemResult[]): Promise<void> {
    if (results.length === 0) return;
    const at = this.now();
    const rows = results.map((result): JobItemResult => ({
      accountId: state.job.accountId,
      jobId: state.job.id,
      index: result.index,
      success: result.success,
      documentId: result.documentId ?? null,
      error: result.error ?? null,
      at,
    }));
    const succeeded = results.filter((result) => result.success).length;
    for (const row of rows) state.results.set(row.index, row);
    state.job = {
      ...state.job,
      completed: state.job.completed + succeeded,
      failed: state.job.failed + results.length - succeeded,
    };
    await this.deps.storage.jobItems.append(rows);
    if (this.deps.sharedStore && this.now() - state.lastWrite >= PROGRESS_WRITE_MS) {
      state.lastWrite = this.now();
      await this.deps.storage.jobs.put(state.job);
    }
  }

  /**
   * Which of these memory ids were stored whole before a restart (not yet recorded as results). A memory
   * whose vectors never committed (the process died between the two commits of a save) is deleted here, so
   * its item is saved again instead of being counted as done and left unsearchable; passages whose memory
   * never committed are deleted too, so the item saved again has each passage once.
   */
  private async storedIds(tenant: string, ids: readonly string[]): Promise<Set<string>> {
    const store = this.deps.storage.memories(tenant);
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const existing = await store.existingIds(batch);
      const present = new Set(existing);
      await store.deletePassages(batch.filter((id) => !present.has(id)));
      if (existing.length === 0) continue;
      const whole = new Set(await store.idsWithVectors(existing));
      const partial = existing.filter((id) => !whole.has(id));
      if (partial.length > 0) await store.delete(partial);
      for (const id of whole) found.add(id);
    }
    return found;
  }

  /** A URL or file item, alone (text items go in batches: saveTextBatch). */
  private async processItem(tenant: string, item: IngestItem, id: string, index: number, options: IngestOptions): Promise<ItemResult> {
    try {
      if (item.file) {
        if (!this.deps.files) throw new MemError('VALIDATION_ERROR', 'File items need the folder watcher.');
        const files = this.deps.files;
        const file = item.file;
        return { index, success: true, documentId: await this.fetches.run(() => this.paced(() => files.saveFile(tenant, file, id))) };
      }
      const url = (item.url as string).trim();
      const document = await this.fetches.run(() => this.deps.source.fromUrl(url, this.controller.signal));
      const { memory } = await this.paced(() => this.deps.documents.save(tenant, {
        document,
        source: { field: 'sourceUrl', value: url },
        title: item.title,
        tags: item.tags,
        metadata: item.metadata,
        spaceId: item.spaceId,
        turbo: options.turbo,
        id,
      }));
      return { index, success: true, documentId: memory.id };
    } catch (error) {
      return { index, success: false, error: failureOf(error) };
    }
  }

  private async notify(job: JobRecord, payload: JobPayload): Promise<void> {
    const url = payload.options.webhook as string;
    const view = await this.status(job.accountId, job.id);
    const attempts: WebhookAttempt[] = [...(payload.delivery?.attempts ?? [])];
    // Writes of the delivery state run one after another: a late attempt record must never overwrite the outcome.
    let writes: Promise<void> = Promise.resolve();
    const save = (delivered: boolean | null): Promise<void> => {
      const snapshot = [...attempts];
      writes = writes.then(async () => {
        const next: JobPayload = { ...payload, delivery: { url, delivered, attempts: snapshot } };
        const current = (await this.deps.storage.jobs.get(job.accountId, job.id)) ?? job;
        await this.deps.storage.jobs.put({ ...current, payload: JSON.stringify(next) });
      });
      return writes;
    };
    try {
      const secret = await this.deps.webhookSecret(accountOfTenant(job.accountId));
      const outcome = await this.deps.webhooks.deliver(
        url,
        {
          event: 'ingest.completed',
          jobId: job.id,
          timestamp: new Date(this.now()).toISOString(),
          results: { total: job.total, successful: job.completed, failed: job.failed },
          documents: view.documents,
          errors: view.errors,
        },
        {
          secret,
          signal: this.controller.signal,
          onAttempt: async (attempt) => {
            attempts.push(attempt);
            await save(null).catch(() => undefined);
          },
        },
      );
      await save(outcome.delivered);
    } catch (error) {
      this.deps.onError?.(error, { jobId: job.id, webhook: url });
      await save(false).catch(() => undefined);
    }
  }
}

/** Ids sort by time: an item dated in the past gets an id of its date. */
function memoryIdFor(item: IngestItem, now: number): string {
  return newId('memory', item.createdAt !== undefined ? Math.max(0, Math.floor(item.createdAt)) : now);
}

function batchesOf(indices: readonly number[], size: number): number[][] {
  const batches: number[][] = [];
  for (let i = 0; i < indices.length; i += size) batches.push(indices.slice(i, i + size));
  return batches;
}

/** An item's error as the job reports it: `CODE: message` for the spec's errors. */
function failureOf(error: unknown): string {
  return error instanceof MemError ? `${error.code}: ${error.message}` : String(error);
}

function hasText(value: string | undefined): boolean {
  return typeof value === 'string' && value.trim().length > 0;
}

/** The job with its counters taken from its recorded items. */
function withCounts(job: JobRecord, results: Iterable<JobItemResult>): JobRecord {
  let completed = 0;
  let failed = 0;
  for (const result of results) {
    if (result.success) completed++;
    else failed++;
  }
  return { ...job, completed, failed };
}

function parsePayload(text: string): JobPayload {
  try {
    const parsed = JSON.parse(text) as Partial<JobPayload>;
    return { items: parsed.items ?? [], ids: parsed.ids ?? [], options: parsed.options ?? {}, delivery: parsed.delivery };
  } catch {
    return { items: [], ids: [], options: {} };
  }
}
