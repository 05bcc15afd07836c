import { MemError } from '../errors.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { inBackground } from './scheduling/priority.js';
import { newId } from './ids.js';
import type { MemoryService } from './memory-service.js';
import type { Storage } from './ports.js';
import type { JobRecord } from './types.js';

const BATCH = 32;

/**
 * Re-embedding memories into the current embedding space, as a background job with progress. Run after
 * switching `embedding.provider` or model: until then those memories are simply not found by search
 * (vectors of different models are never compared).
 */
export class Reindexer {
  constructor(
    private readonly storage: Storage,
    private readonly memories: MemoryService,
    private readonly queue: JobQueue,
    private readonly now: () => number = Date.now,
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

  async get(accountId: string, jobId: string): Promise<JobRecord> {
    const job = await this.storage.jobs.get(accountId, jobId);
    if (!job) throw new MemError('NOT_FOUND', 'Job not found', { details: { jobId } });
    return job;
  }

  async resume(): Promise<void> {
    for (const job of await this.storage.jobs.unfinished()) if (job.kind === 'reindex') this.schedule(job);
  }

  private schedule(initial: JobRecord): void {
    this.queue.add((signal) => inBackground(async () => {
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
    }));
  }
}
