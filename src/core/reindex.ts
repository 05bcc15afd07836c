import type { JobQueue } from '../jobs/job-queue.js';
import { inBackground } from './scheduling/priority.js';
import { newId } from './ids.js';
import type { MemoryService } from './memory-service.js';
import type { Storage } from './ports.js';
import type { JobRecord } from './types.js';
import { LocalLeases, type Leases } from './cluster/leases.js';

const BATCH = 32;

/**
 * Re-embedding memories into the current embedding space, as a background job with progress. Run after
 * switching `embedding.provider` or model: until then those memories are simply not found by search
 * (vectors of different models are never compared).
 */
export class Reindexer {
  /** Jobs queued or running here (resume() runs again and again on a shared store). */
  private readonly scheduled = new Set<string>();

  /** @param leases several daemons on one store: a job runs on the daemon holding its lease. */
  constructor(
    private readonly storage: Storage,
    private readonly memories: MemoryService,
    private readonly queue: JobQueue,
    private readonly now: () => number = Date.now,
    private readonly leases: Leases = new LocalLeases(),
  ) {}

  async start(accountId: string, options: { all: boolean }): Promise<JobRecord> {
    const store = this.storage.memories(accountId);
    const ids = options.all
      ? await store.ids()
      : await store.idsWithoutVectors(Number.MAX_SAFE_INTEGER);
    const now = this.now();
    const job: JobRecord = {
      id: newId('job', now),
      accountId,
      kind: 'reindex',
      status: 'pending',
      total: ids.length,
      completed: 0,
      failed: 0,
      error: null,
      payload: JSON.stringify({ ids }),
      createdAt: now,
      startedAt: null,
      finishedAt: null,
    };
    await this.storage.jobs.put(job);
    this.schedule(job);
    return job;
  }

  async resume(): Promise<void> {
    for (const job of await this.storage.jobs.unfinished()) if (job.kind === 'reindex') this.schedule(job);
  }

  private schedule(listed: JobRecord): void {
    if (this.scheduled.has(listed.id)) return;
    this.scheduled.add(listed.id);
    this.queue.add(async (queueSignal) => {
      const claim = await this.leases.claim(`reindex:${listed.id}`);
      if (!claim) return; // another daemon runs it
      try {
        // Read again under the lease: another daemon may have finished it, or counted more items.
        const initial = await this.storage.jobs.get(listed.accountId, listed.id);
        if (initial && (initial.status === 'pending' || initial.status === 'processing')) await inBackground(() => this.run(initial, AbortSignal.any([queueSignal, claim.signal])));
      } finally {
        claim.stop();
        this.scheduled.delete(listed.id);
      }
    });
  }

  private async run(initial: JobRecord, signal: AbortSignal): Promise<void> {
    let job: JobRecord = { ...initial, status: 'processing', startedAt: initial.startedAt ?? this.now() };
    await this.storage.jobs.put(job);
    const { ids } = JSON.parse(job.payload) as { ids: string[] };
    // Resume after the items already counted by an earlier run.
    for (let start = job.completed + job.failed; start < ids.length; start += BATCH) {
      if (signal.aborted) return;
      let completed = 0;
      let failed = 0;
      await Promise.all(
        ids.slice(start, start + BATCH).map(async (id) => {
          try {
            if (await this.memories.reembed(job.accountId, id)) completed++;
            else failed++;
          } catch {
            failed++;
          }
        }),
      );
      job = { ...job, completed: job.completed + completed, failed: job.failed + failed };
      await this.storage.jobs.put(job);
    }
    await this.storage.jobs.put({ ...job, status: 'completed', finishedAt: this.now() });
  }
}
