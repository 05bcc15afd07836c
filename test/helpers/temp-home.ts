import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh MEM_HOME for one test (file); remove() deletes it. */
export function tempHome(prefix = 'mem-test-'): { dir: string; env: NodeJS.ProcessEnv; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    env: { MEM_HOME: dir, MEM_NO_KEYCHAIN: '1', LANCEDB_LOG: 'error', NO_COLOR: '1' },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
