import * as lancedb from '@lancedb/lancedb';
import { randomBytes } from 'node:crypto';

export interface ProbeResult {
  /** Every racing commit survived: the store rejected the second create-if-absent of each version. */
  readonly safe: boolean;
  /** Rows the racing commits should have left, and what the table holds. */
  readonly expected: number;
  readonly found: number;
  readonly ms: number;
}

/** Writers racing per round, and rounds (a store without conditional writes loses a commit in almost every round). */
const RACERS = 4;
const ROUNDS = 3;

/**
 * Shows whether the store rejects a second create-if-absent of one object, the primitive every LanceDB
 * commit relies on. Several connections append to a scratch table at the same moment: each reads the
 * latest version, then creates the manifest of the next one with create-if-absent. On a safe store all but
 * one create fails, and LanceDB commits those appends as later versions (every row kept); on a store
 * without conditional writes the later creates overwrite the earlier ones (rows lost): exactly how daemons
 * sharing it would lose writes. (A stale handle is not enough: LanceDB lists the versions before a commit.)
 */
export async function probeConditionalCommits(uri: string, storageOptions: Readonly<Record<string, string>>): Promise<ProbeResult> {
  const started = Date.now();
  const name = `_mem_commit_probe_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const options = { storageOptions: { ...storageOptions } };
  const connections = await Promise.all(Array.from({ length: RACERS }, () => lancedb.connect(uri, options)));
  const [first] = connections as [lancedb.Connection, ...lancedb.Connection[]];
  try {
    await first.createTable(name, [{ n: 0 }]);
    const tables = await Promise.all(connections.map((connection) => connection.openTable(name)));
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(tables.map((table) => table.checkoutLatest()));
      // allSettled: on an unsafe store a racer may also fail outright; only the surviving rows matter.
      await Promise.allSettled(tables.map((table, index) => table.add([{ n: round * RACERS + index + 1 }])));
    }
    const check = await lancedb.connect(uri, options);
    try {
      const found = await (await check.openTable(name)).countRows();
      const expected = 1 + ROUNDS * RACERS;
      return { safe: found === expected, expected, found, ms: Date.now() - started };
    } finally {
      check.close();
    }
  } finally {
    await first.dropTable(name).catch(() => undefined);
    for (const connection of connections) connection.close();
  }
}
