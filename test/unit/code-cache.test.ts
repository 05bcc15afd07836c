import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { checksum, readCodeCache, writeCodeCache } from '../../src/cli/code-cache.js';

/**
 * The code cache file of the CLI's hot path (src/cli/code-cache.ts): only a payload written whole, by this
 * format, with its checksum intact, is ever handed to V8 (a release V8 does not checksum it and may crash on
 * a damaged one). The whole-process behaviour is in test/e2e/code-cache.test.ts.
 */
const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-code-cache-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real V8 code cache, of a small script. */
function bytecode(): Buffer {
  const script = new Script('(function (a, b) { return a + b; })');
  (script.runInThisContext() as (a: number, b: number) => number)(1, 2);
  return script.createCachedData();
}

describe('code cache files', () => {
  it('read back what was written, byte for byte', () => {
    const file = join(temp(), 'nested', 'cli-x.bin');
    const payload = bytecode();
    writeCodeCache(file, payload);
    expect(readCodeCache(file)?.equals(payload)).toBe(true);
    expect(readdirSync(join(file, '..'))).toEqual(['cli-x.bin']); // no temporary file left
  });

  it('are ignored when missing, not ours, cut short or damaged anywhere', () => {
    const dir = temp();
    const file = join(dir, 'cli-x.bin');
    expect(readCodeCache(file)).toBeUndefined();
    writeCodeCache(file, bytecode());
    const good = readFileSync(file);
    for (const at of [0, 3, 4, 7, 8, good.length >> 1, good.length - 1]) {
      const damaged = Buffer.from(good);
      damaged[at]! ^= 0x5a;
      writeFileSync(file, damaged);
      expect(readCodeCache(file), `byte ${at} changed`).toBeUndefined();
    }
    for (const length of [0, 4, 8, good.length - 1]) {
      writeFileSync(file, good.subarray(0, length));
      expect(readCodeCache(file), `${length} bytes`).toBeUndefined();
    }
    writeFileSync(file, 'not a cache at all');
    expect(readCodeCache(file)).toBeUndefined();
  });

  it('a write removes the files it is told are stale, and fails silently where it cannot write', () => {
    const dir = temp();
    writeFileSync(join(dir, 'cli-old-v20-x64-search.bin'), 'old');
    writeFileSync(join(dir, 'cli-new-v20-x64-save.bin'), 'kept');
    writeFileSync(join(dir, 'other.txt'), 'kept');
    writeCodeCache(join(dir, 'cli-new-v20-x64-search.bin'), bytecode(), (name) => name.startsWith('cli-') && !name.startsWith('cli-new-'));
    expect(readdirSync(dir).sort()).toEqual(['cli-new-v20-x64-save.bin', 'cli-new-v20-x64-search.bin', 'other.txt']);
    // A file where the directory should be: nothing written, nothing thrown, nothing left behind.
    const blocked = join(dir, 'other.txt', 'cache', 'cli-x.bin');
    expect(() => writeCodeCache(blocked, bytecode())).not.toThrow();
    expect(readCodeCache(blocked)).toBeUndefined();
  });

  it('checksum every byte, the tail past the last 32-bit word too', () => {
    const bytes = new Uint8Array(11).map((_, i) => i);
    const base = checksum(bytes);
    for (let i = 0; i < bytes.length; i++) {
      const changed = Uint8Array.from(bytes);
      changed[i]! ^= 1;
      expect(checksum(changed), `byte ${i}`).not.toBe(base);
    }
    expect(checksum(new Uint8Array(0))).toBe(0x811c9dc5);
  });
});
