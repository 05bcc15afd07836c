import { cp } from 'node:fs/promises';
import * as lancedb from '@lancedb/lancedb';
import type { StoreSnapshot } from '../../core/ports.js';
import { eq } from './predicate.js';
import type { TableWriter } from './table-writer.js';

/**
 * Backups of a LanceDB data directory. Lance never rewrites a data file in place: a commit adds files and a
 * new version manifest. So a directory copied while no commit happens is a consistent snapshot; the store
 * holds every table's writer (writes queue, reads go on) for as long as the copy takes.
 */

/** Runs `work` while every writer is held: taken one by one in the given (fixed) order, released together. */
export async function holdWriters<T>(writers: readonly TableWriter[], work: () => Promise<T>): Promise<T> {
  const releases: (() => void)[] = [];
  try {
    for (const writer of writers) {
      // Resolves once this writer's earlier writes are done; its queue then waits for our release.
      await new Promise<void>((entered) => {
        void writer.exclusive(
          () =>
            new Promise<void>((release) => {
              releases.push(release);
              entered();
            }),
        );
      });
    }
    return await work();
  } finally {
    for (const release of releases) release();
  }
}

/** Every table name of a database (listTables pages). */
async function tableNames(db: lancedb.Connection): Promise<string[]> {
  const names: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await db.listTables({ ...(pageToken ? { pageToken } : {}), limit: 100 });
    names.push(...page.tables);
    pageToken = page.pageToken;
  } while (pageToken);
  return names.sort();
}

/**
 * Opens every table of a data directory and counts its rows, writing nothing (restore checks a backup with
 * it before using it, and the copy it made after). Throws when a table cannot be opened or read.
 */
export async function inspectStore(uri: string): Promise<StoreSnapshot> {
  const db = await lancedb.connect(uri);
  try {
    const tables: { name: string; rows: number }[] = [];
    for (const name of await tableNames(db)) {
      const table = await db.openTable(name);
      try {
        tables.push({ name, rows: await table.countRows() });
      } finally {
        table.close();
      }
    }
    return { schemaVersion: await schemaVersionOf(db), tables };
  } finally {
    db.close();
  }
}

async function schemaVersionOf(db: lancedb.Connection): Promise<number> {
  if (!(await tableNames(db)).includes('meta')) return 0;
  const meta = await db.openTable('meta');
  try {
    const rows = await meta.query().select(['key', 'value']).toArray();
    const row = rows.find((entry: Record<string, unknown>) => entry.key === 'schema_version') as Record<string, unknown> | undefined;
    return Number(row?.value ?? 0);
  } finally {
    meta.close();
  }
}

/** Copies a whole data directory (the caller holds the writers); the target must not exist yet. */
export async function copyStore(sourceUri: string, targetDir: string): Promise<void> {
  await cp(sourceUri, targetDir, { recursive: true, errorOnExist: true, force: false });
}

/**
 * Copies the data directory while the writers are held (in the order given), then opens the copy and checks
 * that every table the store has open holds the same rows there as it did at that moment.
 */
export async function backupStore(sourceUri: string, targetDir: string, writers: readonly TableWriter[]): Promise<StoreSnapshot> {
  const live = await holdWriters(writers, async () => {
    await copyStore(sourceUri, targetDir);
    return Promise.all(writers.map(async (writer) => ({ name: writer.table.name, rows: await writer.table.countRows() })));
  });
  const copy = await inspectStore(targetDir);
  for (const table of live) {
    const copied = copy.tables.find((entry) => entry.name === table.name);
    if (!copied || copied.rows !== table.rows) {
      throw new Error(`The copy of table ${table.name} holds ${copied?.rows ?? 'no'} rows instead of ${table.rows}.`);
    }
  }
  return copy;
}

/** Whether a data directory holds an API key with this hash (restore tells whether the CLI's key still works). */
export async function hasKeyHash(uri: string, hash: string): Promise<boolean> {
  const db = await lancedb.connect(uri);
  try {
    if (!(await tableNames(db)).includes('api_keys')) return false;
    const table = await db.openTable('api_keys');
    try {
      return (await table.countRows(eq('hash', hash))) > 0;
    } finally {
      table.close();
    }
  } finally {
    db.close();
  }
}
