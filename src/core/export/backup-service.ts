import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { MemError } from '../../errors.js';
import type { Storage } from '../ports.js';

/**
 * A backup is a directory holding `lancedb/` (a copy of the data directory's tables) and `manifest.json`
 * (written last: a backup without one is incomplete). The manifest lets `mem restore` check the copy
 * before it replaces anything.
 */
export const BACKUP_DATA_DIR = 'lancedb';
export const BACKUP_MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 'mem-backup';
export const BACKUP_VERSION = 1;

export const backupManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  memVersion: z.string(),
  schemaVersion: z.number().int().min(0),
  createdAt: z.string(),
  embedding: z.object({ modelId: z.string(), dimension: z.number() }),
  tables: z.array(z.object({ name: z.string(), rows: z.number().int().min(0) })),
});
export type BackupManifestRecord = z.infer<typeof backupManifestSchema>;

/** Reads and checks a backup's manifest; VALIDATION_ERROR saying what is wrong. */
export async function readBackupManifest(backupDir: string): Promise<BackupManifestRecord> {
  const path = join(backupDir, BACKUP_MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new MemError('VALIDATION_ERROR', `${backupDir} is not a mem backup: it has no ${BACKUP_MANIFEST_FILE}.`, {
      hint: 'Pass the directory `mem backup` wrote; a backup interrupted before its manifest is incomplete.',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MemError('VALIDATION_ERROR', `${path} is not valid JSON.`);
  }
  const parsed = backupManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new MemError('VALIDATION_ERROR', `${path} is not a mem backup manifest: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

/** Table differences between a manifest and what a directory holds ([] when they agree). */
export function tableMismatches(
  expected: readonly { name: string; rows: number }[],
  found: readonly { name: string; rows: number }[],
): string[] {
  const problems: string[] = [];
  for (const table of expected) {
    const actual = found.find((entry) => entry.name === table.name);
    if (!actual) problems.push(`table ${table.name} is missing`);
    else if (actual.rows !== table.rows) problems.push(`table ${table.name} has ${actual.rows} rows, the manifest says ${table.rows}`);
  }
  for (const table of found) if (!expected.some((entry) => entry.name === table.name)) problems.push(`table ${table.name} is not in the manifest`);
  return problems;
}

export interface BackupServiceDeps {
  readonly storage: Storage;
  /** mem's version, recorded in the manifest. */
  readonly memVersion: string;
  readonly now?: () => number;
}

const isUri = (value: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value);

/** Consistent copies of the data directory while the daemon runs (Storage.backup pauses writes for the copy). */
export class BackupService {
  private readonly now: () => number;

  constructor(private readonly deps: BackupServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async backup(targetDir: string): Promise<{ manifest: BackupManifestRecord; path: string; durationMs: number }> {
    const { storage } = this.deps;
    if (!isAbsolute(targetDir)) {
      throw new MemError('VALIDATION_ERROR', `path must be an absolute directory path (got "${targetDir}").`, {
        hint: 'The CLI expands relative paths; over HTTP send the absolute path.',
      });
    }
    if (isUri(storage.uri)) {
      throw new MemError('VALIDATION_ERROR', `Backups copy a local data directory; this daemon stores its data at ${storage.uri}.`, {
        hint: "Use the storage service's own snapshots, or `mem export` for the data itself.",
      });
    }
    const target = resolve(targetDir);
    const source = resolve(storage.uri);
    const inside = relative(source, target);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw new MemError('VALIDATION_ERROR', 'The backup cannot go inside the data directory it copies.', { details: { path: target } });
    }
    const entries = await readdir(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      if (error.code === 'ENOTDIR') throw new MemError('VALIDATION_ERROR', `${target} is a file, not a directory.`);
      throw error;
    });
    if (entries && entries.length > 0) {
      throw new MemError('VALIDATION_ERROR', `${target} is not empty.`, { hint: 'Back up into a new or empty directory.' });
    }
    const started = this.now();
    await mkdir(target, { recursive: true, mode: 0o700 });
    const data = join(target, BACKUP_DATA_DIR);
    let snapshot;
    try {
      snapshot = await storage.backup(data);
    } catch (error) {
      // Leave no half copy that could be mistaken for a backup.
      await rm(data, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
    const manifest: BackupManifestRecord = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      memVersion: this.deps.memVersion,
      schemaVersion: snapshot.schemaVersion,
      createdAt: new Date(started).toISOString(),
      embedding: { modelId: storage.vectorSpace.modelId, dimension: storage.vectorSpace.dimension },
      tables: [...snapshot.tables],
    };
    await writeFile(join(target, BACKUP_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    return { manifest, path: target, durationMs: this.now() - started };
  }
}
