import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mem, ROOT } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The built CLI's hot path (src/cli/launch.ts, hot-main.ts) runs `mem search`, `mem save`, `mem __complete`
 * from one CommonJS file with a V8 code cache under the cache directory: the first run writes it, the next
 * ones use it, and a cache that is damaged, of another build or impossible to write changes nothing but
 * speed. A scripted server stands in for the daemon, found through the run file.
 */
const home = tempHome('mem-e2e-cache-');
const cacheDir = join(home.dir, 'cache');
let server: Server;
const env = { ...home.env, MEM_API_KEY: 'svc_live_cache' };
const SEARCH = {
  success: true,
  results: [{ id: 'mem_1', content: 'Met Sarah', title: 'Met Sarah', score: 0.9, tags: [], createdAt: '2026-11-24T10:00:00.000Z', spaceId: '' }],
  pagination: { limit: 10, offset: 0, total: 1, hasMore: false },
};

/** The hot bundle's hash, as the launcher names its caches (cli-<hash>-<node>-<arch>-<command>.bin). */
function cacheName(command: string): RegExp {
  return new RegExp(`^cli-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}-${command}\\.bin$`);
}
const caches = () => (existsSync(cacheDir) ? readdirSync(cacheDir).sort() : []);
const searchCache = () => join(cacheDir, caches().find((name) => cacheName('search').test(name)) ?? 'none');

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(SEARCH));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mkdirSync(join(home.dir, 'state'), { recursive: true });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(join(home.dir, 'state', 'daemon.json'), JSON.stringify({ pid: process.pid, url, version: '0.1.0', startedAt: new Date().toISOString() }));
});

beforeEach(() => rmSync(cacheDir, { recursive: true, force: true }));

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  home.remove();
});

async function search(extra: NodeJS.ProcessEnv = {}) {
  const result = await mem(['search', 'Sarah', '--json'], { ...env, ...extra });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toEqual(SEARCH);
  return result;
}

describe('the code cache of the hot path', () => {
  it('is written by the first run of a command, under the cache directory, and used as it is by the next', async () => {
    await search();
    expect(caches()).toEqual([expect.stringMatching(cacheName('search'))]);
    const written = readFileSync(searchCache());
    const modified = statSync(searchCache()).mtimeMs;
    await search();
    expect(readFileSync(searchCache()).equals(written)).toBe(true);
    expect(statSync(searchCache()).mtimeMs).toBe(modified);
    // Each command keeps its own; --version is answered before the hot path loads, and writes none.
    expect((await mem(['__complete', 'memories'], env)).stdout).toBe('mem_1');
    expect((await mem(['--version'], env)).stdout).toMatch(/^\d+\.\d+\.\d+$/);
    expect(caches()).toEqual([expect.stringMatching(cacheName('complete')), expect.stringMatching(cacheName('search'))]);
  });

  it('damaged, cut short or not a cache at all: ignored, and written again', async () => {
    await search();
    const good = readFileSync(searchCache());
    const damaged = Buffer.from(good);
    damaged[good.length >> 1]! ^= 0xff; // in the payload: V8 would take it, and could crash on it
    for (const bad of [damaged, good.subarray(0, good.length >> 1), Buffer.from('garbage')]) {
      writeFileSync(searchCache(), bad);
      await search();
      expect(readFileSync(searchCache()).length).toBeGreaterThan(100);
      expect(readFileSync(searchCache()).equals(bad)).toBe(false);
    }
  });

  it("of another build: removed when this build's is written", async () => {
    mkdirSync(cacheDir, { recursive: true });
    const stale = `cli-0000000000000000-${process.version}-${process.arch}-search.bin`;
    writeFileSync(join(cacheDir, stale), 'from an older build');
    writeFileSync(join(cacheDir, 'notes.txt'), 'not ours');
    await search();
    expect(caches()).toEqual([expect.stringMatching(cacheName('search')), 'notes.txt']);
  });

  it('a cache directory that cannot be written, or source maps on: the command works the same, uncached', async () => {
    writeFileSync(cacheDir, 'a file where the directory should be');
    await search();
    rmSync(cacheDir);
    await search({ NODE_OPTIONS: '--enable-source-maps' });
    expect(caches()).toEqual([]);
  });

  it('the XDG cache directory without MEM_HOME', async () => {
    const xdg = join(home.dir, 'xdg-cache');
    const result = await mem(['search', 'Sarah', '--json'], { ...env, MEM_HOME: '', XDG_CACHE_HOME: xdg, MEM_HOST: `http://${(server.address() as AddressInfo).address}:${(server.address() as AddressInfo).port}` });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readdirSync(join(xdg, 'mem'))).toEqual([expect.stringMatching(cacheName('search'))]);
  });

  it('is part of no package file: the build leaves it out of dist/', () => {
    expect(readdirSync(join(ROOT, 'dist', 'cli')).filter((name) => name.endsWith('.bin'))).toEqual([]);
  });
});
