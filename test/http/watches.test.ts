import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * Folder watch through the API, with the daemon's real chokidar watcher on a temp directory and real file
 * operations. Nothing sleeps: every step waits for observable state (memories, watch status, the watch
 * service's idle point) with a deadline.
 */

type Json = Record<string, any>;
interface MemoryDto {
  id: string;
  content: string;
  tags: string[];
  spaceId: string;
  updatedAt: string | null;
  metadata: Record<string, unknown>;
}

const MAX_UPLOAD_BYTES = 4096;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('folder watch', () => {
  const home = tempHome();
  const root = mkdtempSync(join(tmpdir(), 'mem-watch-'));
  const notes = join(root, 'notes');
  const editor = join(root, 'editor');
  const kept = join(root, 'kept');
  let t: TestApp;
  let watchId = '';
  let bKey = '';

  const json = async (options: InjectOptions) => (await t.request(options)).json() as Json;
  /** Every memory of the account, page by page (the batch test below leaves more than a page). */
  const memories = async (): Promise<MemoryDto[]> => {
    const all: MemoryDto[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await json({ method: 'GET', url: `/v1/memories?limit=100&offset=${offset}` });
      all.push(...(page.data as MemoryDto[]));
      if ((page.pagination as Json).hasMore !== true) return all;
    }
  };
  const byPath = async () => new Map((await memories()).map((memory) => [memory.metadata.sourcePath as string, memory]));
  const memoryAt = (path: string) => waitFor(byPath, (map) => map.has(path), `a memory of ${path}`).then((map) => map.get(path) as MemoryDto);
  const watches = async () => (await json({ method: 'GET', url: '/v1/watches' })).watches as Json[];
  const watchOf = async (id: string) => (await watches()).find((watch) => watch.id === id) as Json;
  const scanDone = (jobId: string) =>
    waitFor(() => json({ method: 'GET', url: `/v1/ingest/status/${jobId}` }), (status) => status.status === 'completed' || status.status === 'failed', `job ${jobId}`);
  /** Waits until the watcher has seen an event after `since`, then until it has handled everything. */
  const handledAfter = async (id: string, since: string | null) => {
    await waitFor(() => watchOf(id), (watch) => watch.lastEventAt !== null && watch.lastEventAt !== since, 'a watcher event');
    await t.deps.watches.onIdle();
  };

  beforeAll(async () => {
    mkdirSync(join(home.dir, 'config'), { recursive: true });
    writeFileSync(join(home.dir, 'config', 'config.json'), JSON.stringify({ 'ingest.maxUploadBytes': MAX_UPLOAD_BYTES }));
    mkdirSync(join(notes, 'sub'), { recursive: true });
    writeFileSync(join(notes, 'alpha.md'), '# Alpha\n\nThe alpha note is about lighthouses on the northern coast.\n');
    writeFileSync(join(notes, 'bravo.txt'), 'Bravo: tide tables for the harbour in March.\n');
    writeFileSync(join(notes, 'sub', 'charlie.md'), '# Charlie\n\nCharlie keeps bees on the roof of the old mill.\n');
    writeFileSync(join(notes, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    t = await createTestApp({ home, keepHome: true });
    const created = await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'b@example.org', name: 'B', tier: 'enterprise' } });
    bKey = (created.json() as { key: { key: string } }).key.key;
  });

  afterAll(async () => {
    await t?.close();
    home.remove();
    rmSync(root, { recursive: true, force: true });
    await closeTestEmbedder();
  });

  it('the first scan ingests the existing files as a job; the watch lists them', async () => {
    const response = await t.request({ method: 'POST', url: '/v1/watches', payload: { path: notes, tags: ['notes'], spaceId: 'personal' } });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as Json;
    watchId = body.watch.id;
    expect(body.watch).toMatchObject({ path: notes, tags: ['notes'], spaceId: 'personal', keepDeleted: false, initialJobId: body.jobId });
    expect(body.statusUrl).toBe(`/v1/ingest/status/${body.jobId}`);
    const status = await scanDone(body.jobId);
    expect(status).toMatchObject({ status: 'completed', progress: { total: 3, completed: 3, failed: 0 } });
    const saved = await byPath();
    expect([...saved.keys()].sort()).toEqual([join(notes, 'alpha.md'), join(notes, 'bravo.txt'), join(notes, 'sub', 'charlie.md')]);
    const alpha = saved.get(join(notes, 'alpha.md')) as MemoryDto;
    expect(alpha).toMatchObject({ tags: ['notes'], spaceId: 'personal' });
    expect(alpha.metadata).toMatchObject({ watchId, filename: 'alpha.md', format: 'markdown' });
    expect(alpha.content).toContain('lighthouses');
    const watch = await watchOf(watchId);
    expect(watch).toMatchObject({ state: 'watching', fileCount: 3, lastError: null, glob: '**/*.{md,markdown,txt,text,html,htm,json,pdf}' });
  });

  it('a new file becomes a memory', async () => {
    writeFileSync(join(notes, 'delta.md'), '# Delta\n\nDelta is the river mouth where the ferries wait.\n');
    const delta = await memoryAt(join(notes, 'delta.md'));
    expect(delta.content).toContain('ferries');
    expect(delta.tags).toEqual(['notes']);
    await waitFor(() => watchOf(watchId), (watch) => watch.fileCount === 4, 'four tracked files');
  });

  it('a changed file updates its memory in place; an unchanged rewrite does nothing', async () => {
    const path = join(notes, 'alpha.md');
    const before = await memoryAt(path);
    writeFileSync(path, '# Alpha\n\nThe alpha note now says the lighthouse was automated in 1982.\n');
    const after = await waitFor(() => memoryAt(path), (memory) => memory.content.includes('1982'), 'the changed content');
    expect(after.id).toBe(before.id);
    expect(after.updatedAt).not.toBeNull();
    expect((await memories()).filter((memory) => memory.metadata.sourcePath === path)).toHaveLength(1);

    const bravoPath = join(notes, 'bravo.txt');
    const bravo = await memoryAt(bravoPath);
    const since = (await watchOf(watchId)).lastEventAt as string | null;
    writeFileSync(bravoPath, 'Bravo: tide tables for the harbour in March.\n');
    await handledAfter(watchId, since);
    const again = await memoryAt(bravoPath);
    expect(again.id).toBe(bravo.id);
    expect(again.updatedAt).toBe(bravo.updatedAt);
    expect((await watchOf(watchId)).lastError).toBeNull();
  });

  it('a deleted file deletes its memory', async () => {
    const path = join(notes, 'delta.md');
    const delta = await memoryAt(path);
    rmSync(path);
    await waitFor(async () => (await t.request({ method: 'GET', url: `/v1/memory/${delta.id}` })).statusCode, (code) => code === 404, 'the deletion');
    await waitFor(() => watchOf(watchId), (watch) => watch.fileCount === 3, 'three tracked files');
  });

  it('a renamed file keeps its memory, which takes the new path', async () => {
    const from = join(notes, 'bravo.txt');
    const to = join(notes, 'moved', 'bravo-renamed.txt');
    const bravo = await memoryAt(from);
    const count = (await memories()).length;
    mkdirSync(join(notes, 'moved'));
    renameSync(from, to);
    const moved = await memoryAt(to);
    expect(moved.id).toBe(bravo.id);
    expect(moved.metadata).toMatchObject({ sourcePath: to, filename: 'bravo-renamed.txt' });
    await t.deps.watches.onIdle();
    expect((await memories()).length).toBe(count);
    expect((await byPath()).has(from)).toBe(false);
    expect((await t.request({ method: 'GET', url: `/v1/memory/${bravo.id}` })).statusCode).toBe(200);
  });

  it('hidden, temporary, editor and over-size files are ignored (first scan and later)', async () => {
    const ignored = (dir: string) => {
      mkdirSync(join(dir, '.git'), { recursive: true });
      writeFileSync(join(dir, '.hidden.md'), 'hidden note');
      writeFileSync(join(dir, '.git', 'notes.md'), 'inside a dot-directory');
      writeFileSync(join(dir, 'draft.md~'), 'editor backup');
      writeFileSync(join(dir, 'draft.md.swp'), 'vim swap');
      writeFileSync(join(dir, 'draft.md.swx'), 'vim swap');
      writeFileSync(join(dir, 'upload.tmp'), 'temporary');
      writeFileSync(join(dir, 'big.md'), `# Big\n\n${'word '.repeat(MAX_UPLOAD_BYTES / 5 + 10)}`);
    };
    mkdirSync(editor);
    ignored(editor);
    writeFileSync(join(editor, 'real.md'), 'The only real note in the editor folder.');
    const response = await t.request({ method: 'POST', url: '/v1/watches', payload: { path: editor, glob: '**' } });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as Json;
    expect((await scanDone(body.jobId)).progress).toMatchObject({ total: 1, completed: 1 });

    const live = join(editor, 'live');
    mkdirSync(live);
    ignored(live);
    writeFileSync(join(live, 'ok.md'), 'A live note written beside the ignored files.');
    await memoryAt(join(live, 'ok.md'));
    await t.deps.watches.onIdle();
    const paths = [...(await byPath()).keys()].filter((path) => path.startsWith(editor)).sort();
    expect(paths).toEqual([join(editor, 'live', 'ok.md'), join(editor, 'real.md')]);
    expect((await watchOf(body.watch.id)).fileCount).toBe(2);
  });

  it('with keepDeleted, a deleted file keeps its memory', async () => {
    mkdirSync(kept);
    writeFileSync(join(kept, 'keep.md'), 'A note that outlives its file.');
    const response = await t.request({ method: 'POST', url: '/v1/watches', payload: { path: kept, keepDeleted: true } });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as Json;
    expect(body.watch.keepDeleted).toBe(true);
    await scanDone(body.jobId);
    const memory = await memoryAt(join(kept, 'keep.md'));
    rmSync(join(kept, 'keep.md'));
    await waitFor(() => watchOf(body.watch.id), (watch) => watch.fileCount === 0, 'the unlink');
    await t.deps.watches.onIdle(); // the rename window has passed
    expect((await t.request({ method: 'GET', url: `/v1/memory/${memory.id}` })).statusCode).toBe(200);
  });

  it('API errors: relative or missing paths, files, bad globs, duplicates, unknown ids, other accounts', async () => {
    const post = (payload: Json) => t.request({ method: 'POST', url: '/v1/watches', payload });
    const invalid: Json[] = [
      { path: 'notes' },
      { path: './notes' },
      { path: join(root, 'does-not-exist') },
      { path: join(notes, 'alpha.md') },
      { path: join(root), glob: '**/*.{md' },
      { path: notes },
    ];
    for (const payload of invalid) {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect((response.json() as Json).error).toBe('VALIDATION_ERROR');
    }
    expect(((await post({ path: notes })).json() as Json).details).toMatchObject({ watchId });

    const openapi = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/v1/watches'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(openapi.paths['/v1/watches/{id}'] ?? {})).toEqual(['delete']);

    const unknown = await t.request({ method: 'DELETE', url: '/v1/watches/wch_01JD3V6Q8X4Z5C2B7N9M0K1H2G' });
    expect(unknown.statusCode).toBe(404);
    expect((unknown.json() as Json).error).toBe('NOT_FOUND');

    const asB = (options: InjectOptions) => t.app.inject({ ...options, headers: { authorization: `Bearer ${bKey}` } });
    expect(((await asB({ method: 'GET', url: '/v1/watches' })).json() as Json).watches).toEqual([]);
    const stolen = await asB({ method: 'DELETE', url: `/v1/watches/${watchId}` });
    expect(stolen.statusCode).toBe(404);
    expect(await watchOf(watchId)).toBeDefined();
    // Only the owner may choose folders for the daemon to read.
    const bWatch = await asB({ method: 'POST', url: '/v1/watches', payload: { path: kept } });
    expect(bWatch.statusCode, bWatch.body).toBe(403);
    expect((bWatch.json() as Json).error).toBe('FORBIDDEN');
    expect(((await asB({ method: 'GET', url: '/v1/watches' })).json() as Json).watches).toEqual([]);
  });

  it('a first scan looks its files up per batch, keeps the memories files already have, and reports a vanished file', async () => {
    const many = join(root, 'many');
    mkdirSync(many);
    const noteOf = (i: number) => `# Note ${i}\n\nBatch note number ${i} of the large folder.\n`;
    for (let i = 0; i < 140; i++) writeFileSync(join(many, `n${i}.md`), noteOf(i));
    const inSpace = async () => {
      const pages = await Promise.all([0, 100].map((offset) => json({ method: 'GET', url: `/v1/memories?limit=100&offset=${offset}&spaceId=many` })));
      return new Map(pages.flatMap((page) => page.data as MemoryDto[]).map((memory) => [memory.metadata.sourcePath as string, memory]));
    };
    const store = Object.getPrototypeOf(t.deps.storage.memories('any')) as { findManyByMetadata: () => unknown; findByMetadata: () => unknown };
    const batched = vi.spyOn(store, 'findManyByMetadata');
    const single = vi.spyOn(store, 'findByMetadata');
    const saveMany = vi.spyOn(Object.getPrototypeOf(t.deps.memories) as { saveMany: (tenant: string, inputs: readonly unknown[]) => unknown }, 'saveMany');
    const documentSave = vi.spyOn(Object.getPrototypeOf(t.deps.documents) as { save: () => unknown }, 'save');
    try {
      const first = (await json({ method: 'POST', url: '/v1/watches', payload: { path: many, spaceId: 'many' } })) as Json;
      expect(await scanDone(first.jobId)).toMatchObject({ status: 'completed', progress: { total: 140, completed: 140, failed: 0 } });
      await t.deps.watches.onIdle();
      // 140 notes: two lookups (batches of 128), none per file.
      expect(batched).toHaveBeenCalledTimes(2);
      expect(single).not.toHaveBeenCalled();
      // The new files are created together, in the pieces the pace grants (not one save each).
      const sizes = saveMany.mock.calls.map(([, inputs]) => inputs.length);
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(140);
      expect(Math.max(...sizes)).toBeGreaterThan(1);
      expect(documentSave).not.toHaveBeenCalled();
      saveMany.mockRestore();
      documentSave.mockRestore();
      const before = await inSpace();
      expect(before.size).toBe(140);

      // Watched again after a change while unwatched: the scan finds the memories the files have.
      expect((await t.request({ method: 'DELETE', url: `/v1/watches/${first.watch.id}` })).statusCode).toBe(200);
      writeFileSync(join(many, 'n3.md'), '# Note 3\n\nRewritten while nobody watched.\n');
      writeFileSync(join(many, 'n140.md'), noteOf(140));
      batched.mockClear();
      const second = (await json({ method: 'POST', url: '/v1/watches', payload: { path: many, spaceId: 'many' } })) as Json;
      expect(await scanDone(second.jobId)).toMatchObject({ status: 'completed', progress: { total: 141, completed: 141, failed: 0 } });
      expect(batched).toHaveBeenCalledTimes(2);
      const after = await inSpace();
      expect(after.size).toBe(141);
      for (const [path, memory] of before) expect(after.get(path)?.id, path).toBe(memory.id);
      expect(after.get(join(many, 'n3.md'))?.content).toContain('Rewritten');
      expect(after.get(join(many, 'n5.md'))).toEqual(before.get(join(many, 'n5.md')));
      expect((await t.request({ method: 'DELETE', url: `/v1/watches/${second.watch.id}` })).statusCode).toBe(200);

      // A file gone between the listing and its batch fails alone; the others of its batch are saved.
      const record = (await t.deps.storage.watches.all()).find((watch) => watch.id === watchId);
      if (!record) throw new Error('the notes watch is gone');
      const job = await t.deps.ingest.submit(record.accountId, [
        { file: { path: join(notes, 'sub', 'charlie.md'), watchId } },
        { file: { path: join(notes, 'vanished.md'), watchId } },
      ], {});
      const status = await scanDone(job.id);
      expect(status).toMatchObject({ status: 'completed', progress: { total: 2, completed: 1, failed: 1 } });
      expect(status.errors).toEqual([{ index: 1, error: expect.stringContaining('vanished.md is gone') }]);

      // A new file listed twice in one batch: the first is created with its piece, the second (which waits
      // for the first's lock) finds that memory instead of holding the piece up or creating another.
      writeFileSync(join(many, 'twice.md'), '# Twice\n\nListed twice in one batch.\n');
      const twice = await t.deps.ingest.submit(record.accountId, [
        { file: { path: join(many, 'twice.md'), watchId } },
        { file: { path: join(many, 'twice.md'), watchId } },
      ], {});
      const twiceStatus = await scanDone(twice.id);
      expect(twiceStatus).toMatchObject({ status: 'completed', progress: { total: 2, completed: 2, failed: 0 } });
      expect(twiceStatus.documents).toHaveLength(1);
    } finally {
      batched.mockRestore();
      single.mockRestore();
      saveMany.mockRestore();
      documentSave.mockRestore();
    }
  });

  it('watches restart with the daemon and catch up with what changed meanwhile', async () => {
    const charlie = await memoryAt(join(notes, 'sub', 'charlie.md'));
    const alpha = await memoryAt(join(notes, 'alpha.md'));
    await t.close();
    writeFileSync(join(notes, 'echo.md'), '# Echo\n\nEcho was written while the daemon was down.\n');
    rmSync(join(notes, 'sub', 'charlie.md'));
    renameSync(join(notes, 'alpha.md'), join(notes, 'alpha-moved.md'));
    t = await createTestApp({ home, keepHome: true });
    const watch = await waitFor(() => watchOf(watchId), (candidate) => candidate?.state === 'watching', 'the restarted watch');
    expect(watch).toMatchObject({ path: notes, tags: ['notes'], spaceId: 'personal' });
    expect((await memoryAt(join(notes, 'echo.md'))).content).toContain('daemon was down');
    await waitFor(async () => (await t.request({ method: 'GET', url: `/v1/memory/${charlie.id}` })).statusCode, (code) => code === 404, 'the catch-up deletion');
    expect((await memoryAt(join(notes, 'alpha-moved.md'))).id).toBe(alpha.id);

    writeFileSync(join(notes, 'foxtrot.md'), '# Foxtrot\n\nFoxtrot arrived after the restart.\n');
    expect((await memoryAt(join(notes, 'foxtrot.md'))).content).toContain('after the restart');
    expect((await watches()).map((candidate) => candidate.path).sort()).toEqual([editor, kept, notes].sort());

    expect((await t.request({ method: 'DELETE', url: `/v1/watches/${watchId}` })).statusCode).toBe(200);
    expect((await watches()).some((candidate) => candidate.id === watchId)).toBe(false);
    expect((await byPath()).has(join(notes, 'foxtrot.md'))).toBe(true);
  });
});
