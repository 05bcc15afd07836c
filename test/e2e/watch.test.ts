import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/** `mem watch` against a real daemon: path expansion, the first scan's wait, list and removal by path or id. */
const home = tempHome();
const root = mkdtempSync(join(tmpdir(), 'mem-watch-cli-'));
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = { ...home.env, MEM_PORT: String(await freePort()), HOME: root };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
  mkdirSync(join(root, 'notes'));
  writeFileSync(join(root, 'notes', 'one.md'), '# One\n\nThe first note, about sailing boats.');
  writeFileSync(join(root, 'notes', 'two.txt'), 'The second note, about windmills.');
  mkdirSync(join(root, 'later'));
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
  rmSync(root, { recursive: true, force: true });
});

describe('mem watch', () => {
  let laterId = '';

  it('add expands a relative path and waits for the first scan', async () => {
    const added = await mem(['watch', 'add', 'notes', '--tags', 'notes', '--json'], env, { cwd: root });
    expect(added.exitCode, added.stderr).toBe(0);
    const body = json<{ watch: { path: string; tags: string[] }; jobId: string; scan: { status: string; progress: { completed: number } } }>(added);
    expect(body.watch).toMatchObject({ path: join(root, 'notes'), tags: ['notes'] });
    expect(body.scan).toMatchObject({ status: 'completed', progress: { completed: 2 } });
    const listed = json<{ data: { metadata: { sourcePath: string } }[] }>(await mem(['ls', '--json'], env));
    expect(listed.data.map((memory) => memory.metadata.sourcePath).sort()).toEqual([join(root, 'notes', 'one.md'), join(root, 'notes', 'two.txt')]);
  });

  it('add expands ~ and returns at once with --no-wait', async () => {
    const added = await mem(['watch', 'add', '~/later', '--keep-deleted', '--no-wait', '--json'], env);
    expect(added.exitCode, added.stderr).toBe(0);
    const body = json<{ watch: { id: string; path: string; keepDeleted: boolean }; jobId: string }>(added);
    expect(body.watch).toMatchObject({ path: join(root, 'later'), keepDeleted: true });
    expect(body.jobId).toMatch(/^job_/);
    laterId = body.watch.id;
    const human = await mem(['watch', 'list'], env);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain(join(root, 'notes'));
    expect(human.stdout).toContain(laterId);
  });

  it('refuses a missing folder (exit 2) and an unknown watch (exit 5)', async () => {
    const missing = await mem(['watch', 'add', join(root, 'nowhere')], env);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('error[VALIDATION_ERROR]');
    const unknown = await mem(['watch', 'remove', 'nowhere'], env, { cwd: root });
    expect(unknown.exitCode).toBe(5);
  });

  it('remove takes a path or an id; the memories stay', async () => {
    const byPath = await mem(['watch', 'remove', 'notes'], env, { cwd: root });
    expect(byPath.exitCode, byPath.stderr).toBe(0);
    expect(byPath.stdout).toContain('Stopped watching');
    expect((await mem(['watch', 'remove', laterId, '--json'], env)).exitCode).toBe(0);
    expect(json<{ watches: unknown[] }>(await mem(['watch', 'list', '--json'], env)).watches).toEqual([]);
    expect(json<{ data: unknown[] }>(await mem(['ls', '--json'], env)).data).toHaveLength(2);
  });
});
