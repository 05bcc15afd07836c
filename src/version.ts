import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root and version, found by walking up from this file (works from src/ and dist/src/). */
function findPackage(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mem') return { root: dir, version: pkg.version ?? '0.0.0' };
    } catch {
      // not here; keep walking up
    }
    dir = dirname(dir);
  }
  return { root: process.cwd(), version: '0.0.0' };
}

const found = findPackage();
export const VERSION = found.version;
export const PACKAGE_ROOT = found.root;
