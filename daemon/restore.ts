import { access, mkdir, rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isAlive, readRunFile } from '../src/client/discovery.js';
import type { LoadedConfig } from '../src/config/load-config.js';
import {
  BACKUP_DATA_DIR,
  readBackupManifest,
  tableMismatches,
  type BackupManifestRecord,
} from '../src/core/export/backup-service.js';
import { MemError } from '../src/errors.js';
import { hashKey } from '../src/core/auth-service.js';
import { copyStore, hasKeyHash, inspectStore } from '../src/store/lancedb/backup.js';
import { SCHEMA_VERSION } from '../src/store/lancedb/schema.js';

export interface RestoreReport {
  readonly from: string;
  /** The data directory that now holds the backup's tables. */
  readonly dataDir: string;
  /** Where the data directory that was there went (null when there was none). */
  readonly movedAside: string | null;
  readonly manifest: BackupManifestRecord;
  /** Whether the API key the CLI has (if any) is one of the restored data's keys. */
  readonly apiKey: 'valid' | 'unknown' | 'none';
}

const exists = (path: string) => access(path).then(
  () => true,
  () => false,
);

/** 2026-03-04T05:06:07.089Z -> 20260304T050607Z (sortable, safe in a file name). */
const stamp = (at: number) => new Date(at).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * Restores a backup (`mem backup`) into the data directory of a stopped daemon, in-process like `mem serve`
 * (only the daemon side may open LanceDB). The backup is checked first (manifest, schema version, every
 * table opens with the rows the manifest lists); the data directory that is there is moved aside to
 * `<dir>.bak-<timestamp>`, never deleted; the copy is checked again once in place.
 */
export async function restoreBackup(
  loaded: LoadedConfig,
  backupDir: string,
  options: { now?: number; apiKey?: string | undefined } = {},
): Promise<RestoreReport> {
  const now = options.now ?? Date.now();
  const running = readRunFile(loaded.paths.runFile);
  if (running && isAlive(running.pid)) {
    throw new MemError('VALIDATION_ERROR', `The mem daemon (pid ${running.pid}) is running on this data directory; a restore needs it stopped.`, {
      hint: 'Stop it with `mem daemon stop`, restore, then start it again.',
    });
  }
  const target = loaded.storageUri;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    throw new MemError('VALIDATION_ERROR', `Restore writes a local data directory; storage.uri is ${target}.`);
  }
  const from = resolve(backupDir);
  const manifest = await readBackupManifest(from);
  if (manifest.schemaVersion > SCHEMA_VERSION) {
    throw new MemError('VALIDATION_ERROR', `The backup was made by a newer mem (schema ${manifest.schemaVersion}; this one knows ${SCHEMA_VERSION}).`, {
      hint: 'Upgrade mem, then restore.',
    });
  }
  const data = join(from, BACKUP_DATA_DIR);
  await check(data, manifest, 'The backup');

  const dataDir = resolve(target);
  let movedAside: string | null = null;
  if (await exists(dataDir)) {
    movedAside = `${dataDir}.bak-${stamp(now)}`;
    await rename(dataDir, movedAside);
  }
  await mkdir(dirname(dataDir), { recursive: true, mode: 0o700 });
  try {
    await copyStore(data, dataDir);
    await check(dataDir, manifest, 'The restored copy');
  } catch (error) {
    throw new MemError('INTERNAL_ERROR', `The restore failed: ${error instanceof Error ? error.message : String(error)}`, {
      hint: movedAside ? `The data directory that was there is at ${movedAside}; move it back to ${dataDir} to undo.` : undefined,
      cause: error,
    });
  }
  const apiKey = !options.apiKey ? 'none' : (await hasKeyHash(dataDir, hashKey(options.apiKey))) ? 'valid' : 'unknown';
  return { from, dataDir, movedAside, manifest, apiKey };
}

/** Every table opens and holds the rows the manifest lists. */
async function check(uri: string, manifest: BackupManifestRecord, what: string): Promise<void> {
  let found;
  try {
    found = await inspectStore(uri);
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `${what} cannot be opened: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = tableMismatches(manifest.tables, found.tables);
  if (problems.length > 0) {
    throw new MemError('VALIDATION_ERROR', `${what} does not match its manifest: ${problems.slice(0, 5).join('; ')}.`, {
      details: { problems },
    });
  }
}
