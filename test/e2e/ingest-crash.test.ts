import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * A bulk ingest job survives `kill -9` of the daemon: after a restart it resumes where it stopped, with no
 * item lost and none stored twice.
 */
const home = tempHome('mem-e2e-ingest-');
const ITEMS = 240;
let env: NodeJS.ProcessEnv;
let base: string;
let key: string;

async function api<T = Record<string, any>>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return (await response.json()) as T;
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  const port = await freePort();
  env = { ...home.env, MEM_PORT: String(port) };
  base = `http://127.0.0.1:${port}`;
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
  key = (await mem(['token'], env)).stdout.trim();
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
});

describe('ingest jobs and crashes', () => {
  it('resumes after kill -9 with every item stored exactly once', async () => {
    const file = join(home.dir, 'items.jsonl');
    const lines = Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ content: `Crash test note number ${i}: the tide table for pier ${i}.`, tags: ['crash'] }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const submitted = await mem(['ingest', file, '--no-wait', '--json'], env);
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    const { jobId } = json<{ jobId: string }>(submitted);

    // Kill the daemon in the middle of the job.
    const midway = await waitFor(
      () => api(`/v1/ingest/status/${jobId}`),
      (status) => status.progress.completed >= 20,
    );
    expect(midway.status).toBe('processing');
    const { pid } = json<{ pid: number }>(await mem(['daemon', 'status', '--json'], env));
    process.kill(pid, 'SIGKILL');
    await waitFor(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (gone) => gone,
    );

    const restarted = await mem(['daemon', 'start', '--json'], env);
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    const done = await waitFor(() => api(`/v1/ingest/status/${jobId}`), (status) => status.status === 'completed');
    expect(done.progress).toMatchObject({ total: ITEMS, completed: ITEMS, failed: 0 });

    const contents: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await api<{ data: { content: string }[]; pagination: { hasMore: boolean } }>(`/v1/memories?tags=crash&limit=100&offset=${offset}`);
      contents.push(...page.data.map((memory) => memory.content));
      if (!page.pagination.hasMore) break;
    }
    expect(contents).toHaveLength(ITEMS);
    expect(new Set(contents).size).toBe(ITEMS);
    expect(new Set(done.documents).size).toBe(ITEMS);
    // Two daemon starts and 240 items: on a host shared with other test runs (load average 17-24 on 2
    // cores) this took over 30 s before and after issue #23's changes alike; the waits above allow 120 s each.
  }, 240_000);

  it('the CLI waits with progress and reports the result; --status and jobs show it', async () => {
    const file = join(home.dir, 'small.json');
    writeFileSync(file, JSON.stringify([{ content: 'Array item one about ferns.' }, 'A bare string item about moss.', { content: 'Item three about lichen.', title: 'Lichen' }]));
    const result = await mem(['ingest', file, '--tags', 'botany'], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/ingest: 100% \(3\/3\)/);
    expect(result.stdout).toMatch(/completed\s+3\/3/);
    const jobId = /^(job_\S+)/m.exec(result.stdout)?.[1] ?? '';
    const status = json<{ status: string }>(await mem(['ingest', '--status', jobId, '--json'], env));
    expect(status.status).toBe('completed');
    const jobs = await mem(['jobs'], env);
    expect(jobs.stdout).toContain(jobId);
    const bad = await mem(['ingest', join(home.dir, 'missing.jsonl')], env);
    expect(bad.exitCode).toBe(2);
    writeFileSync(join(home.dir, 'broken.jsonl'), '{"content": "ok"}\nnot json\n');
    const broken = await mem(['ingest', join(home.dir, 'broken.jsonl')], env);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(/line 2 is not JSON/);
  });
});
