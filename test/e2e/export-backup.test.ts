import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/** mem export / import / backup / restore with the real binary against real daemons (one per home). */
const source = tempHome('mem-e2e-source-');
const copy = tempHome('mem-e2e-copy-');
const restored = tempHome('mem-e2e-restored-');
const files = mkdtempSync(join(tmpdir(), 'mem-e2e-files-'));
let a: NodeJS.ProcessEnv;
let b: NodeJS.ProcessEnv;
let c: NodeJS.ProcessEnv;

const stable = (text: string) => text.replace(/"exportedAt":"[^"]+"/, '"exportedAt":"-"');

interface ImportSummary {
  success: boolean;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  byType: Record<string, { created: number; unchanged: number; failed: number }>;
  errors: { origin: string; error: string }[];
}

beforeAll(async () => {
  a = { ...source.env, MEM_PORT: String(await freePort()) };
  b = { ...copy.env, MEM_PORT: String(await freePort()) };
  c = { ...restored.env, MEM_PORT: String(await freePort()) };
  for (const env of [a, b]) {
    const started = await mem(['daemon', 'start', '--json'], env);
    expect(started.exitCode, started.stderr).toBe(0);
  }
  for (const [text, tags, space] of [
    ['Sarah Chen is the CEO of Acme Corp. She met David Okafor in Berlin.', 'work,acme', 'work'],
    ['Tomatoes and basil grow well together.', 'garden', 'home'],
  ] as const) {
    const saved = await mem(['save', text, '--tags', tags, '--space', space, '--json'], a);
    expect(saved.exitCode, saved.stderr).toBe(0);
  }
  mkdirSync(join(files, 'notes'));
  writeFileSync(join(files, 'notes', 'trip.md'), '---\ntitle: Trip plan\ntags: [travel]\ndate: 2021-04-05\nmood: happy\n---\nVisit Rome with Maria Lopez.\n');
  writeFileSync(join(files, 'chat.json'), JSON.stringify([
    { role: 'user', content: 'What should I cook tonight?', timestamp: '2023-01-01T18:00:00Z' },
    { role: 'assistant', content: 'Try a mushroom risotto.', timestamp: 1672596060 },
  ]));
  writeFileSync(join(files, 'items.json'), JSON.stringify([
    { content: 'Bought a new kettle', title: 'Kettle', tags: ['home'], metadata: { price: 30 }, createdAt: '2022-02-02T10:00:00Z' },
    { title: 'no content' },
  ]));
});

afterAll(async () => {
  for (const env of [a, b, c]) await mem(['daemon', 'stop'], env);
  for (const home of [source, copy, restored]) home.remove();
  rmSync(files, { recursive: true, force: true });
});

describe('importers (--from)', () => {
  it('markdown notes keep their front matter and date; a second run finds them', async () => {
    const first = await mem(['import', '--from', 'markdown', join(files, 'notes'), '--tags', 'notes', '--json'], a);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(json<ImportSummary>(first)).toMatchObject({ success: true, created: 1, failed: 0 });
    const again = json<ImportSummary>(await mem(['import', '--from', 'markdown', join(files, 'notes'), '--tags', 'notes', '--json'], a));
    expect(again).toMatchObject({ created: 0, unchanged: 1 });
    const listed = json<{ data: Record<string, unknown>[] }>(await mem(['ls', '--tags', 'notes', '--json'], a));
    expect(listed.data).toEqual([
      expect.objectContaining({
        title: 'Trip plan',
        content: 'Visit Rome with Maria Lopez.',
        tags: ['travel', 'notes'],
        metadata: { mood: 'happy', file: 'trip.md' },
        createdAt: '2021-04-05T00:00:00.000Z',
      }),
    ]);
  });

  it('a chat export becomes one memory per message, dated by its timestamp', async () => {
    const result = await mem(['import', '--from', 'chat', join(files, 'chat.json'), '--space', 'chats', '--json'], a);
    expect(result.exitCode, result.stderr).toBe(0);
    const listed = json<{ data: { content: string; tags: string[]; createdAt: string }[] }>(await mem(['ls', '--space', 'chats', '--json'], a));
    expect(listed.data.map(({ content, tags, createdAt }) => ({ content, tags, createdAt }))).toEqual([
      { content: 'Try a mushroom risotto.', tags: ['chat', 'assistant'], createdAt: '2023-01-01T18:01:00.000Z' },
      { content: 'What should I cook tonight?', tags: ['chat', 'user'], createdAt: '2023-01-01T18:00:00.000Z' },
    ]);
  });

  it('a JSON array imports its valid items and names the invalid ones (exit 1)', async () => {
    const result = await mem(['import', '--from', 'json', join(files, 'items.json'), '--json'], a);
    expect(result.exitCode).toBe(1);
    const summary = json<ImportSummary>(result);
    expect(summary).toMatchObject({ success: false, created: 1, failed: 1 });
    expect(summary.errors).toEqual([expect.objectContaining({ origin: 'item 1', error: expect.stringMatching(/content/) })]);
  });
});

describe('export, import into another home, backup and restore', () => {
  const exported = join(files, 'a.jsonl');

  it('mem export -o FILE and mem export > stdout write the same lines', async () => {
    const toFile = await mem(['export', '-o', exported, '--json'], a);
    expect(toFile.exitCode, toFile.stderr).toBe(0);
    expect(json<{ counts: Record<string, number> }>(toFile).counts).toMatchObject({ memories: 6, spaces: 3 });
    const toStdout = await mem(['export'], a);
    expect(toStdout.exitCode).toBe(0);
    expect(toStdout.stderr).toMatch(/Exported 6 memories/);
    expect(stable(`${toStdout.stdout}\n`)).toBe(stable(readFileSync(exported, 'utf8')));
    const work = await mem(['export', '--space', 'work'], a);
    expect(work.stdout.split('\n').filter((line) => line.includes('"type":"memory"'))).toHaveLength(1);
  });

  it('mem import restores it elsewhere (byte-identical export); importing again changes nothing', async () => {
    const dry = json<ImportSummary>(await mem(['import', exported, '--dry-run', '--json'], b));
    expect(dry).toMatchObject({ created: expect.any(Number), failed: 0 });
    expect(json<{ pagination: { total: number } }>(await mem(['ls', '--json'], b)).pagination.total).toBe(0);
    const first = await mem(['import', exported, '--json'], b);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(json<ImportSummary>(first).byType.memory).toMatchObject({ created: 6, failed: 0 });
    const second = json<ImportSummary>(await mem(['import', exported, '--json'], b));
    expect(second).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect(second.unchanged).toBe(readFileSync(exported, 'utf8').trim().split('\n').length - 2);
    const again = await mem(['export'], b);
    expect(stable(`${again.stdout}\n`)).toBe(stable(readFileSync(exported, 'utf8')));
  });

  it('mem backup copies the running daemon; mem restore refuses while it runs, and restores into a stopped home', async () => {
    const dir = join(files, 'backup');
    const backup = await mem(['backup', dir, '--json'], a);
    expect(backup.exitCode, backup.stderr).toBe(0);
    expect(json<{ manifest: { tables: { name: string; rows: number }[] } }>(backup).manifest.tables).toEqual(
      expect.arrayContaining([{ name: 'memories', rows: 6 }]),
    );
    const busy = await mem(['restore', dir, '--yes'], a);
    expect(busy.exitCode).toBe(2);
    expect(busy.stderr).toMatch(/running/);

    const result = await mem(['restore', dir, '--yes'], c);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Restored/);
    expect(result.stdout).toMatch(/mem login/);
    const started = await mem(['daemon', 'start', '--json'], c);
    expect(started.exitCode, started.stderr).toBe(0);
    // The restored data has the source's keys: the CLI logs in with one of them.
    const token = (await mem(['token'], a)).stdout.trim();
    const login = await mem(['login', '--with-key'], c, { input: token });
    expect(login.exitCode, login.stderr).toBe(0);
    const listed = json<{ pagination: { total: number } }>(await mem(['ls', '--json'], c));
    expect(listed.pagination.total).toBe(6);
    const query = ['search', 'who is the CEO of Acme?', '--threshold', '0', '--json'];
    const top = async (env: NodeJS.ProcessEnv) => json<{ results: { id: string }[] }>(await mem(query, env)).results[0]?.id;
    expect(await top(c)).toBe(await top(a));
    expect(stable((await mem(['export'], c)).stdout)).toBe(stable((await mem(['export'], a)).stdout));
  });
});
