import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { MemError } from '../../errors.js';
import { JobQueue } from '../../jobs/job-queue.js';
import { ulid } from '../ids.js';
import type { IngestItem } from '../ingest/types.js';
import type { Storage } from '../ports.js';
import type { JobRecord, WatchRecord } from '../types.js';
import { FileRules } from './file-rules.js';
import { compileGlob, DEFAULT_WATCH_GLOB, GlobError } from './glob.js';
import type { FileEvent, FolderWatch, FolderWatching } from './types.js';
import type { WatchedFiles } from './watched-files.js';
import type { WatchCluster } from '../cluster/watch-coordinator.js';

/** A deleted file whose memory waits this long for the same content to appear elsewhere (a rename). */
const DEFAULT_RENAME_WINDOW_MS = 2000;
/** Events of one watch handled at once (never two on the same file: WatchedFiles.serial). */
const EVENT_CONCURRENCY = 4;

export interface WatchInput {
  readonly path: string;
  readonly glob?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly spaceId?: string | undefined;
  readonly keepDeleted?: boolean | undefined;
}

/** `elsewhere`: several daemons share the store and another one follows the watch. */
export type WatchState = 'starting' | 'watching' | 'failed' | 'elsewhere';

export interface WatchView {
  readonly record: WatchRecord;
  readonly state: WatchState;
  /** Files of the folder that have a memory. */
  readonly fileCount: number;
  readonly lastEventAt: number | null;
  readonly lastError: string | null;
}

export interface WatchServiceDeps {
  readonly storage: Storage;
  readonly files: WatchedFiles;
  /** Submits the first scan as an ingest job (IngestService.submit). */
  readonly submit: (tenant: string, items: readonly IngestItem[]) => Promise<JobRecord>;
  readonly watching: FolderWatching;
  /** Files larger than this are ignored (ingest.maxUploadBytes). */
  readonly maxBytes: number;
  readonly renameWindowMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
  /** Several daemons on one store: which of them follows a watch (src/core/cluster/watch-coordinator.ts). */
  readonly cluster?: WatchCluster;
}

interface PendingUnlink {
  readonly path: string;
  readonly memoryId: string;
  readonly hash: string;
  readonly timer: NodeJS.Timeout;
}

/** A watch the daemon follows now. */
class ActiveWatch {
  state: WatchState = 'starting';
  watcher: FolderWatch | null = null;
  /** path -> memory id of every file with a memory. */
  readonly tracked = new Map<string, string>();
  readonly pending: PendingUnlink[] = [];
  readonly queue = new JobQueue(EVENT_CONCURRENCY);
  lastEventAt: number | null = null;
  lastError: string | null = null;
  stopped = false;
  private readonly drained: (() => void)[] = [];

  constructor(
    public record: WatchRecord,
    readonly rules: FileRules,
  ) {}

  /** Removes and returns the first pending unlink that matches (its timer cancelled). */
  takePending(match: (entry: PendingUnlink) => boolean): PendingUnlink | null {
    const at = this.pending.findIndex(match);
    if (at < 0) return null;
    const [entry] = this.pending.splice(at, 1);
    if (!entry) return null;
    clearTimeout(entry.timer);
    if (this.pending.length === 0) for (const resolve of this.drained.splice(0)) resolve();
    return entry;
  }

  get busy(): boolean {
    return this.pending.length > 0 || this.queue.size > 0;
  }

  /** Resolves once the queue is idle and no deleted file waits out its rename window. */
  async settled(): Promise<void> {
    await this.queue.onIdle();
    if (this.pending.length > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.pending.splice(0)) clearTimeout(entry.timer);
    for (const resolve of this.drained.splice(0)) resolve();
    await this.watcher?.close();
    await this.queue.close();
  }
}

/**
 * Folders that ingest themselves. A watch is persisted and belongs to the tenant that made it; the daemon
 * starts every watch when it starts. The first scan saves the files already there as an ingest job (with
 * progress); afterwards the watcher's events are handled per watch: an added or changed file is saved
 * (updated in place when its text changed), a deleted file's memory is deleted (or kept with keepDeleted)
 * unless the same content appears at another path within the rename window, in which case that memory
 * keeps its id and takes the new path. After a restart, the folder is compared with the memories the
 * watch made, so what changed while the daemon was down is caught up.
 */
export class WatchService {
  private readonly active = new Map<string, ActiveWatch>();
  private readonly renameWindowMs: number;
  private readonly now: () => number;
  private closed = false;
  private starting: Promise<void> | null = null;
  private started = false;

  constructor(private readonly deps: WatchServiceDeps) {
    this.renameWindowMs = deps.renameWindowMs ?? DEFAULT_RENAME_WINDOW_MS;
    this.now = deps.now ?? Date.now;
    deps.files.onSaved((watch, path, memoryId) => {
      const active = this.active.get(watch.id);
      if (active && !active.stopped) active.tracked.set(path, memoryId);
    });
  }

  /** Validates, persists and starts a watch; its first scan is the returned ingest job. */
  async add(tenant: string, input: WatchInput): Promise<{ view: WatchView; job: JobRecord }> {
    const path = await validDirectory(input.path);
    const glob = input.glob?.trim() || DEFAULT_WATCH_GLOB;
    try {
      compileGlob(glob);
    } catch (error) {
      if (error instanceof GlobError) throw new MemError('VALIDATION_ERROR', error.message, { details: { glob } });
      throw error;
    }
    const existing = (await this.deps.storage.watches.list(tenant)).find((watch) => watch.path === path);
    if (existing) {
      throw new MemError('VALIDATION_ERROR', `${path} is already watched.`, {
        details: { watchId: existing.id },
        hint: 'Remove the existing watch first to change its settings.',
      });
    }
    const record: WatchRecord = {
      id: `wch_${ulid(this.now())}`,
      accountId: tenant,
      path,
      glob,
      tags: [...new Set(input.tags ?? [])],
      spaceId: input.spaceId ?? '',
      keepDeleted: input.keepDeleted ?? false,
      createdAt: this.now(),
      initialJobId: null,
    };
    if (this.deps.cluster && !(await this.deps.cluster.hold(record))) {
      throw new MemError('INTERNAL_ERROR', 'The new watch could not be claimed for this daemon in the shared store.');
    }
    await this.deps.storage.watches.put(record);
    try {
      const active = await this.follow(record);
      const job = await this.firstScan(active);
      return { view: this.view(active), job };
    } catch (error) {
      await this.stopWatch(record.id);
      await this.deps.storage.watches.delete(tenant, record.id);
      this.deps.cluster?.release(record.id);
      throw error;
    }
  }

  async list(tenant: string): Promise<WatchView[]> {
    const records = await this.deps.storage.watches.list(tenant);
    return Promise.all(records.map(async (record) => {
      const active = this.active.get(record.id);
      if (active) return this.deps.cluster ? { ...this.view(active), fileCount: await this.storedFileCount(record) } : this.view(active);
      if (this.deps.cluster) return { record, fileCount: await this.storedFileCount(record), lastEventAt: null, ...(await this.deps.cluster.describe(record)) };
      // Persisted but not (yet) followed: start() has not reached it, or the daemon is shutting down.
      const state: WatchState = this.started || this.closed ? 'failed' : 'starting';
      return { record, state, fileCount: 0, lastEventAt: null, lastError: state === 'failed' ? 'Not running.' : null };
    }));
  }

  /** Stops following the folder; the memories its files made stay. */
  async remove(tenant: string, id: string): Promise<void> {
    const record = await this.deps.storage.watches.get(tenant, id);
    if (!record) throw new MemError('NOT_FOUND', 'Watch not found', { details: { id } });
    await this.stopWatch(id);
    await this.deps.storage.watches.delete(tenant, id);
    this.deps.cluster?.release(id);
  }

  /** Stops following a watch here (another daemon follows it now); the watch and its memories stay. */
  drop(id: string): Promise<void> {
    return this.stopWatch(id);
  }

  /** Starts every persisted watch (daemon start-up); a folder that cannot be followed is listed as failed. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      for (const record of await this.deps.storage.watches.all()) {
        if (this.closed) return;
        await this.restart(record).catch((error: unknown) => this.deps.onError?.(error, { watchId: record.id, path: record.path }));
      }
    })().finally(() => {
      this.started = true;
    });
    return this.starting;
  }

  /**
   * Follows a watch record written from outside (an import), as start-up does: a watch that already ran
   * catches up with its folder, one that never did makes its first scan. A watch of that id that is followed
   * already is stopped first.
   */
  async adopt(record: WatchRecord): Promise<void> {
    if (this.closed) return;
    await this.stopWatch(record.id);
    await this.restart(record);
  }

  /** Resolves when no event of any watch is waiting or being handled and no deletion waits (tests, benchmarks). */
  async onIdle(): Promise<void> {
    for (;;) {
      const busy = [...this.active.values()].filter((active) => active.busy);
      if (busy.length === 0) return;
      await Promise.all(busy.map((active) => active.settled()));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => undefined);
    await Promise.all([...this.active.keys()].map((id) => this.stopWatch(id)));
  }

  /**
   * Files of a watch that have a memory, counted in the store: on a shared store its first scan is an ingest
   * job that another daemon may run, and then this daemon's own count never saw those files.
   */
  private async storedFileCount(record: WatchRecord): Promise<number> {
    const { rows } = await this.deps.storage.memories(record.accountId).select({
      where: null,
      fields: ['metadata'],
      narrow: { type: 'metadata', path: ['watchId'], op: 'in', values: [record.id] },
    });
    return rows.filter((row) => row.metadata?.watchId === record.id).length;
  }

  private view(active: ActiveWatch): WatchView {
    return {
      record: active.record,
      state: active.state,
      fileCount: active.tracked.size,
      lastEventAt: active.lastEventAt,
      lastError: active.lastError,
    };
  }

  private async stopWatch(id: string): Promise<void> {
    const active = this.active.get(id);
    if (!active) return;
    this.active.delete(id);
    await active.stop();
  }

  /** Starts the watcher of a record; resolves when it is ready. */
  private async follow(record: WatchRecord): Promise<ActiveWatch> {
    if (this.closed) throw new MemError('INTERNAL_ERROR', 'The daemon is shutting down.');
    const active = new ActiveWatch(record, new FileRules(record.path, record.glob, this.deps.maxBytes));
    this.active.set(record.id, active);
    try {
      active.watcher = await this.deps.watching.watch(active.rules, {
        onEvent: (event) => this.enqueue(active, event),
        onError: (error) => this.noteError(active, error, record.path),
      });
    } catch (error) {
      this.active.delete(record.id);
      await active.queue.close();
      throw new MemError('INTERNAL_ERROR', `Cannot watch ${record.path}: ${message(error)}`, { cause: error });
    }
    if (active.stopped || this.closed) await active.watcher.close();
    else active.state = 'watching';
    return active;
  }

  /** The files already there, saved by an ingest job (the watch records the job's id). */
  private async firstScan(active: ActiveWatch): Promise<JobRecord> {
    const { record } = active;
    const files = await this.deps.watching.list(active.rules);
    const items: IngestItem[] = files.map((file) => ({
      file: { path: file.path, watchId: record.id, size: file.size },
      tags: record.tags.length > 0 ? record.tags : undefined,
      spaceId: record.spaceId || undefined,
    }));
    const job = await this.deps.submit(record.accountId, items);
    active.record = { ...record, initialJobId: job.id };
    await this.deps.storage.watches.put(active.record);
    return job;
  }

  /** After a restart: follow the folder again and catch up with what changed while the daemon was down. */
  private async restart(record: WatchRecord): Promise<void> {
    try {
      const info = await stat(record.path);
      if (!info.isDirectory()) throw new Error('not a directory');
    } catch (error) {
      // A missing folder (an unmounted disk) is not a folder whose files were all deleted: nothing is touched.
      this.markFailed(record, `Cannot watch ${record.path}: ${message(error)}`);
      return;
    }
    let active: ActiveWatch;
    try {
      active = await this.follow(record);
    } catch (error) {
      this.markFailed(record, message(error));
      throw error;
    }
    if (active.stopped) return;
    if (!record.initialJobId) {
      await this.firstScan(active);
      return;
    }
    const known = new Map<string, { id: string; size: unknown; modifiedAt: unknown }>();
    const { rows } = await this.deps.storage.memories(record.accountId).select({
      where: null,
      fields: ['metadata'],
      narrow: { type: 'metadata', path: ['watchId'], op: 'in', values: [record.id] },
    });
    for (const row of rows) {
      const metadata = row.metadata ?? {};
      if (metadata.watchId !== record.id || typeof metadata.sourcePath !== 'string') continue;
      known.set(metadata.sourcePath, { id: row.id, size: metadata.sizeBytes, modifiedAt: metadata.fileModifiedAt });
    }
    for (const [path, memory] of known) active.tracked.set(path, memory.id);
    const onDisk = await this.deps.watching.list(active.rules);
    const present = new Set(onDisk.map((file) => file.path));
    // Deletions first, handled before any addition: a file moved while the daemon was down is then
    // recognised as a rename.
    for (const path of known.keys()) if (!present.has(path)) this.enqueue(active, { type: 'unlink', path }, false);
    await active.queue.onIdle();
    for (const file of onDisk) {
      const memory = known.get(file.path);
      const unchanged = memory && memory.size === file.size && memory.modifiedAt === new Date(file.mtimeMs).toISOString();
      if (!unchanged) this.enqueue(active, { type: memory ? 'change' : 'add', path: file.path }, false);
    }
  }

  /** Lists a watch that could not be started, with the reason. */
  private markFailed(record: WatchRecord, reason: string): void {
    if (this.closed) return;
    const failed = new ActiveWatch(record, new FileRules(record.path, record.glob, this.deps.maxBytes));
    failed.state = 'failed';
    failed.lastError = reason;
    failed.stopped = true;
    this.active.set(record.id, failed);
  }

  private enqueue(active: ActiveWatch, event: FileEvent, fromWatcher = true): void {
    if (active.stopped) return;
    if (fromWatcher) active.lastEventAt = this.now();
    const tenant = active.record.accountId;
    active.queue.add(async () => {
      try {
        await this.deps.files.serial(tenant, event.path, () => this.handle(active, event));
      } catch (error) {
        this.noteError(active, error, event.path);
      }
    });
  }

  private async handle(active: ActiveWatch, event: FileEvent): Promise<void> {
    if (active.stopped) return;
    // The watch may be gone from the store (its account was removed): stop following the folder.
    if (!(await this.deps.storage.watches.get(active.record.accountId, active.record.id))) {
      if (this.active.get(active.record.id) === active) this.active.delete(active.record.id);
      void active.stop();
      return;
    }
    if (event.type === 'unlink') return this.unlinked(active, event.path);
    const file = await this.deps.files.read(event.path);
    if (!file) return; // gone again, or over the size limit
    const cameBack = active.takePending((entry) => entry.path === file.path);
    if (!cameBack && !active.tracked.has(file.path)) {
      const renamed = active.takePending((entry) => entry.hash === file.hash);
      if (renamed) {
        active.tracked.delete(renamed.path);
        if (await this.deps.files.move(active.record, renamed.memoryId, file)) return;
      }
    }
    await this.deps.files.store(active.record, file);
  }

  /** A deleted file: its memory waits out the rename window, then goes (unless the watch keeps it). */
  private async unlinked(active: ActiveWatch, path: string): Promise<void> {
    const memoryId = active.tracked.get(path) ?? (await this.deps.files.memoryOf(active.record, path))?.id;
    active.tracked.delete(path);
    if (!memoryId) return;
    const memory = await this.deps.storage.memories(active.record.accountId).get(memoryId);
    if (!memory) return;
    const timer = setTimeout(() => {
      const entry = active.takePending((candidate) => candidate.timer === timer);
      if (!entry || active.record.keepDeleted || active.stopped) return;
      active.queue.add(async () => {
        try {
          await this.deps.files.serial(active.record.accountId, entry.path, async () => {
            // Saved again at the same path meanwhile (a new file there): that memory stays.
            if (active.tracked.get(entry.path) === entry.memoryId) return;
            await this.deps.files.remove(active.record, entry.memoryId);
          });
        } catch (error) {
          this.noteError(active, error, entry.path);
        }
      });
    }, this.renameWindowMs);
    timer.unref();
    active.pending.push({ path, memoryId, hash: memory.contentHash, timer });
  }

  private noteError(active: ActiveWatch, error: unknown, path: string): void {
    active.lastError = `${path}: ${message(error)}`;
    this.deps.onError?.(error, { watchId: active.record.id, path });
  }
}

async function validDirectory(input: string): Promise<string> {
  if (!isAbsolute(input)) {
    throw new MemError('VALIDATION_ERROR', `path must be an absolute directory path (got "${input}").`, {
      hint: 'The CLI expands ~ and relative paths; over HTTP send the absolute path.',
    });
  }
  const path = resolve(input);
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new MemError('VALIDATION_ERROR', `${path} does not exist or cannot be read.`, { details: { path } });
  }
  if (!info.isDirectory()) throw new MemError('VALIDATION_ERROR', `${path} is not a directory.`, { details: { path } });
  return path;
}

function message(error: unknown): string {
  return error instanceof MemError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}
