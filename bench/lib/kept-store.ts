import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The passages table of a store `bench/load.ts --home DIR` kept, for the in-process benches that read a copy
 * of it. Without one, says how to build it rather than failing on a missing directory.
 */
export function keptPassagesTable(home: string): { readonly source: string; readonly name: string } {
  const source = join(home, 'data', 'lancedb');
  const name = existsSync(source) ? readdirSync(source).find((entry) => entry.startsWith('chunks__')) : undefined;
  if (!name) {
    throw new Error(
      `no kept store with a passages table in ${source}. Build one first (about 20 minutes for 100,000 memories): ` +
        `node --import tsx bench/load.ts --size 100000 --seconds 0 --ingest 0 --during 0 --scan 0 --home ${home}`,
    );
  }
  return { source, name };
}
