import { lstat, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { MemError } from '../../errors.js';
import { JobQueue } from '../../jobs/job-queue.js';
import { fitContent, type DocumentSaveInput, type DocumentSaves, type SaveOutcome } from '../ingest/document-saves.js';
import type { DocumentSource, ExtractedDocument, SaveFilesOptions, WatchedFileRef, WatchedFileSaver } from '../ingest/types.js';
import { contentHash, type MemoryService } from '../memory-service.js';
import type { Storage } from '../ports.js';
import type { MemoryRecord, WatchRecord } from '../types.js';

/** A watched file read and extracted, not yet saved. */
export interface PreparedFile {
  readonly path: string;
  readonly document: ExtractedDocument;
  /** The content hash its memory has (or would have): renames are recognised by it. */
  readonly hash: string;
  readonly size: number;
  /** ISO 8601; kept in metadata.fileModifiedAt, so that a restart re-reads only files that changed. */
  readonly modifiedAt: string;
}

export interface WatchedFilesDeps {
  readonly storage: Storage;
  readonly memories: MemoryService;
  readonly documents: DocumentSaves;
  readonly source: DocumentSource;
  /** Files larger than this are never read (ingest.maxUploadBytes). */
  readonly maxBytes: number;
}

/** Told whenever a watched file's memory is saved (the watch service counts tracked files with it). */
export type SavedListener = (watch: WatchRecord, path: string, memoryId: string) => void;

/**
 * Watched files as memories: one memory per file, keyed by its absolute path (metadata.sourcePath), so a
 * changed file updates its memory and an unchanged rewrite (same content hash) leaves it alone. The first
 * scan's ingest job and the watcher can both reach a file: every operation on one path runs after the
 * previous one, so neither can create the file's memory twice.
 */
export class WatchedFiles implements WatchedFileSaver {
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Per batch of saveFiles: the paths some other task handled since the batch looked its files up. */
  private readonly observers = new Set<Set<string>>();
  private listener: SavedListener | null = null;

  constructor(private readonly deps: WatchedFilesDeps) {}

  onSaved(listener: SavedListener): void {
    this.listener = listener;
  }

  /** Runs the task after every earlier task on the same tenant's path. */
  serial<T>(tenant: string, path: string, task: () => Promise<T>): Promise<T> {
    const key = `${tenant}\n${path}`;
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.catch(() => undefined).then(() => {
      for (const touched of this.observers) touched.add(key);
    });
    this.locks.set(key, settled);
    void settled.then(() => {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    });
    return next;
  }

  /** Reads and extracts a file; null when it is gone, not a regular file, or over the size limit. */
  async read(path: string): Promise<PreparedFile | null> {
    let info;
    let body: Buffer;
    try {
      info = await lstat(path); // a symbolic link is not followed out of the folder
      if (!info.isFile() || info.size > this.deps.maxBytes) return null;
      body = await readFile(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (body.length > this.deps.maxBytes) return null;
    const document = await this.deps.source.fromFile(body, '', basename(path));
    return {
      path,
      document,
      hash: contentHash(fitContent(document.text.trim()).content),
      size: body.length,
      modifiedAt: new Date(info.mtimeMs).toISOString(),
    };
  }

  /**
   * Creates or updates the file's memory (nothing when its text is unchanged). `existing`: the path's memory
   * when the caller looked it up already (null: none).
   */
  async store(watch: WatchRecord, file: PreparedFile, id?: string, existing?: MemoryRecord | null): Promise<{ memory: MemoryRecord; outcome: SaveOutcome }> {
    const saved = await this.deps.documents.save(watch.accountId, this.documentInput(watch, file, id, existing));
    this.listener?.(watch, file.path, saved.memory.id);
    return saved;
  }

  /** A renamed or moved file: its memory keeps its id and content and learns the new path. */
  async move(watch: WatchRecord, memoryId: string, file: PreparedFile): Promise<MemoryRecord | null> {
    const existing = await this.deps.storage.memories(watch.accountId).get(memoryId);
    if (!existing) return null;
    const memory = await this.deps.memories.update(watch.accountId, memoryId, {
      metadata: { ...existing.metadata, ...this.fileMetadata(watch, file), sourcePath: file.path },
    });
    this.listener?.(watch, file.path, memory.id);
    return memory;
  }

  /** Deletes a deleted file's memory (and what extraction made of it). */
  async remove(watch: WatchRecord, memoryId: string): Promise<boolean> {
    const { deleted } = await this.deps.memories.deleteMany(watch.accountId, [memoryId]);
    return deleted.length > 0;
  }

  /** The memory of a path this watch made, if any. */
  async memoryOf(watch: WatchRecord, path: string): Promise<MemoryRecord | null> {
    const memory = await this.deps.storage.memories(watch.accountId).findByMetadata('sourcePath', path);
    return memory && memory.metadata.watchId === watch.id ? memory : null;
  }

  /** An item of a first-scan ingest job. */
  async saveFile(tenant: string, file: WatchedFileRef, id: string): Promise<string> {
    const watch = await this.deps.storage.watches.get(tenant, file.watchId);
    if (!watch) throw new MemError('NOT_FOUND', 'The watch of this file was removed.', { details: { watchId: file.watchId } });
    return this.serial(tenant, file.path, async () => {
      const prepared = await this.read(file.path);
      if (!prepared) throw new MemError('VALIDATION_ERROR', `${file.path} is gone or over the size limit.`);
      return (await this.store(watch, prepared, id)).memory.id;
    });
  }

  /**
   * Items of a first-scan ingest job, as a batch: the watch is read once and the files' memories are looked
   * up in one query, not one scan of the memories per file (a first scan of 2,000 notes ran at ~1.5 files/s
   * so). The files go in pieces as large as `gate` grants (the background pace; all at once without one),
   * and a piece's new files are created together (DocumentSaves.createMany: one embedding call, one commit
   * per table), like an ingest job's text items; changed files are updated one by one. A file some other
   * task (the watcher) handled after the lookup is looked up again. Settles per file, in order: the memory
   * id, or why the file failed.
   */
  async saveFiles(
    tenant: string,
    files: readonly { readonly file: WatchedFileRef; readonly id: string }[],
    options: SaveFilesOptions = {},
  ): Promise<PromiseSettledResult<string>[]> {
    const touched = new Set<string>();
    this.observers.add(touched);
    const reads = new JobQueue(READS_AT_ONCE);
    try {
      const watches = new Map<string, Promise<WatchRecord | null>>();
      const context: PieceContext = {
        tenant,
        touched,
        reads,
        known: await this.deps.storage.memories(tenant).findManyByMetadata('sourcePath', files.map(({ file }) => file.path)),
        watchOf: (watchId) => {
          let watch = watches.get(watchId);
          if (!watch) watches.set(watchId, (watch = this.deps.storage.watches.get(tenant, watchId)));
          return watch;
        },
        together: options.together ?? true,
        ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
      };
      const outcomes: PromiseSettledResult<string>[] = [];
      while (outcomes.length < files.length) {
        const wanted = files.length - outcomes.length;
        const slots = options.gate ? await options.gate(wanted) : { granted: wanted, release: () => undefined };
        try {
          outcomes.push(...(await this.savePiece(context, files.slice(outcomes.length, outcomes.length + Math.max(1, slots.granted)))));
        } finally {
          slots.release();
        }
      }
      return outcomes;
    } finally {
      this.observers.delete(touched);
      await reads.close();
    }
  }

  /**
   * One piece of saveFiles. Each file is read under its path's lock (serial); a new one then waits, still
   * holding the lock, until every file of the piece has been read, and the new ones are created together,
   * so neither the watcher nor another task can create the same path's memory meanwhile.
   */
  private async savePiece(context: PieceContext, piece: readonly { readonly file: WatchedFileRef; readonly id: string }[]): Promise<PromiseSettledResult<string>[]> {
    const joined: { watch: WatchRecord; file: PreparedFile; id: string; resolve: (memory: MemoryRecord) => void; reject: (error: unknown) => void }[] = [];
    let arrived = 0;
    let allArrived: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (allArrived = resolve));
    const arrive = () => {
      if (++arrived === piece.length) allArrived();
    };
    void ready.then(async () => {
      if (joined.length === 0) return;
      try {
        const created = await this.deps.documents.createMany(
          context.tenant,
          joined.map(({ watch, file, id }) => this.documentInput(watch, file, id)),
          context.beforeCommit ? { beforeCommit: context.beforeCommit } : {},
        );
        created.forEach((outcome, index) => {
          const entry = joined[index];
          if (!entry) return;
          if (outcome.status === 'rejected') return entry.reject(outcome.reason);
          this.listener?.(entry.watch, entry.file.path, outcome.value.id);
          entry.resolve(outcome.value);
        });
      } catch (error) {
        for (const entry of joined) entry.reject(error);
      }
    });
    const paths = new Set<string>();
    return Promise.allSettled(
      piece.map(async ({ file, id }) => {
        // The same path twice in a piece: the second waits for the first's lock, so it must not hold the
        // piece's creation up; it is saved alone after it.
        const alone = !context.together || paths.has(file.path);
        paths.add(file.path);
        let counted = false;
        const count = () => {
          if (counted) return;
          counted = true;
          arrive();
        };
        if (alone) count();
        try {
          const watch = await context.watchOf(file.watchId);
          if (!watch) throw new MemError('NOT_FOUND', 'The watch of this file was removed.', { details: { watchId: file.watchId } });
          return await this.serial(context.tenant, file.path, async () => {
            const prepared = await context.reads.run(() => this.read(file.path));
            if (!prepared) throw new MemError('VALIDATION_ERROR', `${file.path} is gone or over the size limit.`);
            const existing = context.touched.has(`${context.tenant}\n${file.path}`) ? undefined : (context.known.get(file.path) ?? null);
            if (existing !== null || alone) {
              count();
              return (await this.store(watch, prepared, id, existing)).memory.id;
            }
            const created = new Promise<MemoryRecord>((resolve, reject) => joined.push({ watch, file: prepared, id, resolve, reject }));
            count();
            return (await created).id;
          });
        } finally {
          count();
        }
      }),
    );
  }

  private documentInput(watch: WatchRecord, file: PreparedFile, id?: string, existing?: MemoryRecord | null): DocumentSaveInput {
    return {
      existing,
      document: file.document,
      source: { field: 'sourcePath', value: file.path },
      tags: watch.tags.length > 0 ? watch.tags : undefined,
      spaceId: watch.spaceId || undefined,
      metadata: this.fileMetadata(watch, file),
      id,
    };
  }

  private fileMetadata(watch: WatchRecord, file: PreparedFile): Record<string, unknown> {
    return { watchId: watch.id, filename: basename(file.path), fileModifiedAt: file.modifiedAt };
  }
}

interface PieceContext {
  readonly together: boolean;
  readonly tenant: string;
  readonly touched: ReadonlySet<string>;
  readonly reads: JobQueue;
  readonly known: ReadonlyMap<string, MemoryRecord>;
  readonly watchOf: (watchId: string) => Promise<WatchRecord | null>;
  readonly beforeCommit?: () => Promise<boolean>;
}

/** Files of a batch read at once (each may be up to ingest.maxUploadBytes). */
const READS_AT_ONCE = 8;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
