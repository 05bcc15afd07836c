import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/*
 * A V8 code cache for one CommonJS file, for Node versions without module.enableCompileCache (before 22.1):
 * the file is compiled as a vm.Script with the bytecode a previous run stored, and a run that had none (or
 * whose cache V8 turned down: another Node, other V8 flags) stores the bytecode of everything it compiled,
 * when the process exits. ES modules cannot be given a code cache on Node 20, hence one CommonJS file.
 */

/** 'MEMC': the file is a code cache of ours. */
const MAGIC = 0x434d454d;
/** The magic number and the payload's checksum, before the payload. */
const HEADER_BYTES = 8;
/** The same wrapper as Node's CommonJS loader, on a line of its own so that lines keep their numbers. */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_END = '\n})';

/**
 * FNV-1a over the payload, 32 bits at a time. V8 checks a code cache's version, flags and source length, but
 * a release build does not checksum its payload: a cache damaged on disk could crash the process instead of
 * being turned down.
 */
export function checksum(bytes: Uint8Array): number {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  let hash = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i]!, 0x01000193);
  for (let i = words.length << 2; i < bytes.byteLength; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** The stored bytecode, or undefined when there is none or it is not ours, cut short or damaged. */
export function readCodeCache(cacheFile: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (data.byteLength <= HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return undefined;
  // A payload at an offset that is a multiple of 4 can be read as 32-bit words.
  const payload = Buffer.from(data.subarray(HEADER_BYTES));
  return checksum(payload) === data.readUInt32LE(4) ? payload : undefined;
}

/**
 * Stores bytecode for the next run, atomically (a reader sees the old file or the new one, never half of
 * one), and removes the files of its directory that `isStale` names (caches of other builds). A cache is
 * only an optimisation: a directory that cannot be written is no error.
 */
export function writeCodeCache(cacheFile: string, payload: Buffer, isStale: (name: string) => boolean = () => false): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(checksum(payload), 4);
  const dir = dirname(cacheFile);
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, Buffer.concat([header, payload]), { mode: 0o600 });
    renameSync(temporary, cacheFile);
    for (const name of readdirSync(dir)) {
      if (isStale(name) && join(dir, name) !== cacheFile) rmSync(join(dir, name), { force: true });
    }
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // the directory itself is not there to hold it
    }
  }
}

export interface CachedRequireOptions {
  /** Where this file's bytecode is kept: its name must change whenever the file's content does. */
  readonly cacheFile: string;
  /** Which names in the cache's directory belong to other builds of the same file (removed on a write). */
  readonly isStale?: (name: string) => boolean;
}

/**
 * `require(file)` for a self-contained CommonJS bundle (no `import()` in it), compiled with its code cache.
 * The cache is ignored when it is missing, damaged or turned down by V8; it is then written on exit.
 */
export function requireWithCodeCache(file: string, options: CachedRequireOptions): unknown {
  const source = readFileSync(file, 'utf8');
  const cachedData = readCodeCache(options.cacheFile);
  const script = new Script(`${WRAPPER_START}${source}${WRAPPER_END}`, { filename: file, lineOffset: -1, ...(cachedData ? { cachedData } : {}) });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // On exit, the bytecode holds every function this run compiled, not only the top level.
    process.once('exit', () => {
      try {
        writeCodeCache(options.cacheFile, script.createCachedData(), options.isStale);
      } catch {
        // a cache is only an optimisation: the command's own exit code stands
      }
    });
  }
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown, id: file, filename: file, loaded: false };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  return module.exports;
}
