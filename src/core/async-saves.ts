import { MemError } from '../errors.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { newId } from './ids.js';
import type { MemoryService, SaveInput } from './memory-service.js';
import type { Storage } from './ports.js';
import type { PendingSaveRecord } from './types.js';
import { LocalLeases, type Leases } from './cluster/leases.js';

/**
 * Saves with `async: true`. The request is persisted as a pending record before the response, then a
 * queue worker stores it. The memory id is allocated up front and kept in the record, so a save resumed
 * after a crash finds the memory it may already have written instead of storing it twice.
 *
 * States: pending -> processing -> completed | failed.
 */
export class AsyncSaves {
  constructor(
    private readonly storage: Storage,
    private readonly memories: MemoryService,
    private readonly queue: JobQueue,
    private readonly now: () => number = Date.now,
    /** Several daemons on one store: a save runs on the daemon holding its lease (resume() then repeats). */
    private readonly leases: Leases = new LocalLeases(),
  ) {}

  /** Saves queued or running here. */
  private readonly scheduled = new Set<string>();

  async submit(accountId: string, input: SaveInput): Promise<PendingSaveRecord> {
    const now = this.now();
    const record: PendingSaveRecord = {
      id: newId('pendingSave', now),
      accountId,
      status: 'pending',
      documentId: newId('memory', now),
      error: null,
      request: JSON.stringify(input),
      createdAt: now,
      updatedAt: now,
    };
    await this.storage.pendingSaves.put(record);
    this.schedule(record);
    return record;
  }

  async status(accountId: string, pendingId: string): Promise<PendingSaveRecord> {
    const record = await this.storage.pendingSaves.get(accountId, pendingId);
    if (!record) throw new MemError('NOT_FOUND', 'Pending save not found', { details: { pendingId } });
    return record;
  }

  /** Re-queues saves a previous daemon accepted but did not finish. */
  async resume(): Promise<number> {
    const unfinished = await this.storage.pendingSaves.unfinished();
    for (const record of unfinished) this.schedule(record);
    return unfinished.length;
  }

  private schedule(listed: PendingSaveRecord): void {
    if (this.scheduled.has(listed.id)) return;
    this.scheduled.add(listed.id);
    this.queue.add(async () => {
      const claim = await this.leases.claim(`save:${listed.id}`).catch(() => null);
      if (!claim) {
        this.scheduled.delete(listed.id);
        return; // another daemon stores it (or the store is out of reach: resume() tries again)
      }
      try {
        // Read again under the lease: another daemon may have finished it meanwhile.
        const record = (await this.storage.pendingSaves.get(listed.accountId, listed.id)) ?? listed;
        if (record.status === 'pending' || record.status === 'processing') await this.run(record);
      } finally {
        claim.stop();
        this.scheduled.delete(listed.id);
      }
    });
  }

  /**
   * Whether an earlier attempt stored this memory whole. One that died between the memory's commit and its
   * passages' left a memory without vectors: it is deleted and saved again, not counted as done and left
   * unsearchable. One that died the other way round left passages without a memory: they are deleted, so
   * the save repeated under the same id stores each passage once.
   */
  private async storedWhole(accountId: string, memoryId: string): Promise<boolean> {
    const store = this.storage.memories(accountId);
    if ((await store.existingIds([memoryId])).length === 0) {
      await store.deletePassages([memoryId]);
      return false;
    }
    if ((await store.idsWithVectors([memoryId])).length > 0) return true;
    await store.delete([memoryId]);
    return false;
  }

  private async run(record: PendingSaveRecord): Promise<void> {
    const update = (patch: Partial<PendingSaveRecord>) =>
      this.storage.pendingSaves.put({ ...record, ...patch, updatedAt: this.now() });
    try {
      await update({ status: 'processing' });
      const documentId = record.documentId ?? newId('memory');
      if (!(await this.storedWhole(record.accountId, documentId))) {
        const input = JSON.parse(record.request) as SaveInput;
        await this.memories.save(record.accountId, { ...input, id: documentId });
      }
      await update({ status: 'completed', documentId });
    } catch (error) {
      await update({ status: 'failed', error: error instanceof Error ? error.message : String(error) }).catch(
        () => undefined,
      );
    }
  }
}
