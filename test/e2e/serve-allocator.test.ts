import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemClient } from '../../src/client/http-client.js';
import { freePort, json, mem, ROOT } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const homes: { remove(): void }[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.remove();
});

function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

async function serve(extraEnv: NodeJS.ProcessEnv) {
  const home = tempHome('mem-alloc-');
  homes.push(home);
  const port = await freePort();
  const env = { ...home.env, MEM_PORT: String(port), ...extraEnv };
  const wrapper = spawn(process.execPath, [join(ROOT, 'bin', 'mem.js'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  wrapper.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => wrapper.once('exit', (code) => resolve(code)));
  const client = new MemClient({ baseUrl: `http://127.0.0.1:${port}` });
  const runFile = join(home.dir, 'state', 'daemon.json');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = existsSync(runFile) && (await client.health(500).then(() => true, () => false));
    if (up) break;
    if (Date.now() > deadline) throw new Error(`mem serve did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const daemonPid = (JSON.parse(readFileSync(runFile, 'utf8')) as { pid: number }).pid;
  return { wrapper, exit, daemonPid, runFile, output: () => output };
}

describe.runIf(process.platform === 'linux')('mem serve on Linux: glibc allocator settings', () => {
  it('runs the daemon with them as its child, passes SIGTERM on, and shuts down gracefully', async () => {
    const { wrapper, exit, daemonPid, runFile, output } = await serve({});
    expect(daemonPid).not.toBe(wrapper.pid);
    const environ = environOf(daemonPid);
    expect(environ.get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
    expect(environ.get('MALLOC_ARENA_MAX')).toBe('2');
    wrapper.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(existsSync(runFile)).toBe(false);
    expect(output()).toContain('mem daemon stopped');
  }, 60_000);

  it("keeps the user's own values and does not start itself again when all are set", async () => {
    const partial = await serve({ MALLOC_ARENA_MAX: '4' });
    const environ = environOf(partial.daemonPid);
    expect(environ.get('MALLOC_ARENA_MAX')).toBe('4');
    expect(environ.get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
    partial.wrapper.kill('SIGINT');
    expect(await partial.exit).toBe(0);

    const complete = await serve({ MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(complete.daemonPid).toBe(complete.wrapper.pid);
    complete.wrapper.kill('SIGTERM');
    expect(await complete.exit).toBe(0);
  }, 60_000);

  it('mem daemon start gives the background daemon the settings directly (its pid is the one started)', async () => {
    const home = tempHome('mem-alloc-');
    homes.push(home);
    const env = { ...home.env, MEM_PORT: String(await freePort()) };
    const started = await mem(['daemon', 'start', '--json'], env);
    expect(started.exitCode, started.stderr).toBe(0);
    try {
      const { pid } = json<{ pid: number }>(started);
      expect(environOf(pid).get('MALLOC_MMAP_THRESHOLD_')).toBe('131072');
      expect(environOf(pid).has('MEM_ALLOCATOR_SET')).toBe(false);
    } finally {
      expect((await mem(['daemon', 'stop'], env)).exitCode).toBe(0);
    }
  }, 60_000);
});
