import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../daemon/app.js';
import { PLANS, type PlanTable } from '../../src/core/accounts/plans.js';
import { verifySignature } from '../../src/ingest/webhooks.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/ingest/fixture-server.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

const SMALL: PlanTable = { ...PLANS, free: { ...PLANS.free, ingestItemsPerRequest: 3, concurrentJobs: 1 } };
const json = (response: LightMyRequestResponse) => response.json() as Record<string, any>;

/** A multipart body with one file part and some fields. */
function multipart(file: { name: string; type: string; body: Buffer | string }, fields: Record<string, string> = {}) {
  const boundary = '----memtest' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    Buffer.isBuffer(file.body) ? file.body : Buffer.from(file.body),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('URL saves, file uploads and bulk ingest', () => {
  let t: TestApp;
  let site: FixtureServer;
  let page = 'First version of the changing page about lighthouses.';

  beforeAll(async () => {
    t = await createTestApp({ plans: SMALL });
    site = await startFixtureServer();
    site.route('/changing.txt', (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(page));
  });
  afterAll(async () => {
    await t.close();
    await site.close();
    await closeTestEmbedder();
  });

  it('saves a page with its readable text and metadata; the same URL again is idempotent', async () => {
    const url = `${site.origin}/article.html`;
    const first = await t.request({ method: 'POST', url: '/v1/save', payload: { url, tags: ['ocean'] } });
    expect(first.statusCode, first.body).toBe(201);
    const id = json(first).documentId;
    const memory = json(await t.request({ method: 'GET', url: `/v1/memory/${id}` })).data;
    expect(memory.title).toBe('Why Tides Happen');
    expect(memory.metadata).toMatchObject({ sourceUrl: url, author: 'Marie Tharp', format: 'html' });
    expect(memory.tags).toEqual(['ocean']);
    const again = await t.request({ method: 'POST', url: '/v1/save', payload: { url } });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ documentId: id, message: 'Already saved: unchanged' });

    const changing = `${site.origin}/changing.txt`;
    const v1 = json(await t.request({ method: 'POST', url: '/v1/save', payload: { url: changing } }));
    page = 'Second version: the lighthouse keeper retired in 1990.';
    const v2 = await t.request({ method: 'POST', url: '/v1/save', payload: { url: changing } });
    expect(v2.statusCode).toBe(200);
    expect(json(v2)).toMatchObject({ documentId: v1.documentId, message: 'Memory updated: the source changed' });
    const updated = json(await t.request({ method: 'GET', url: `/v1/memory/${v1.documentId}` })).data;
    expect(updated.content).toContain('retired in 1990');
  });

  it('URL failures are INVALID_URL saying which', async () => {
    const cases: [string, RegExp][] = [
      [`${site.origin}/missing`, /HTTP 404/],
      [`${site.origin}/image.png`, /unsupported content type image\/png/],
      [`${site.origin}/empty.html`, /no text/],
      ['http://10.0.0.1/admin', /network\.allowPrivateNetworks/],
      ['ftp://example.org/file', /http/],
    ];
    for (const [url, message] of cases) {
      const response = await t.request({ method: 'POST', url: '/v1/save', payload: { url } });
      expect(response.statusCode, url).toBe(422);
      expect(json(response).error).toBe('INVALID_URL');
      expect(json(response).message).toMatch(message);
    }
    const both = await t.request({ method: 'POST', url: '/v1/save', payload: { url: `${site.origin}/plain.txt`, content: 'x' } });
    expect(both.statusCode).toBe(400);
  });

  it('uploads files as multipart/form-data; the same bytes again find the same memory', async () => {
    const note = '# Harbour log\n\nThe ferry to Sylt leaves at 07:40 on weekdays.';
    const upload = multipart({ name: 'harbour.md', type: 'text/markdown', body: note }, { tags: 'travel,ferry', metadata: '{"trip":"sylt"}' });
    const first = await t.request({ method: 'POST', url: '/v1/save', ...upload });
    expect(first.statusCode, first.body).toBe(201);
    const id = json(first).documentId;
    const memory = json(await t.request({ method: 'GET', url: `/v1/memory/${id}` })).data;
    expect(memory.title).toBe('Harbour log');
    expect(memory.tags).toEqual(['travel', 'ferry']);
    expect(memory.metadata).toMatchObject({ filename: 'harbour.md', mimeType: 'text/markdown', sizeBytes: Buffer.byteLength(note), trip: 'sylt' });
    const again = await t.request({ method: 'POST', url: '/v1/save', ...multipart({ name: 'copy.md', type: 'text/markdown', body: note }) });
    expect(json(again)).toMatchObject({ documentId: id, message: 'Already saved: unchanged' });

    const image = await t.request({ method: 'POST', url: '/v1/save', ...multipart({ name: 'x.png', type: 'image/png', body: Buffer.from([0x89, 0x50]) }) });
    expect(image.statusCode).toBe(400);
    expect(json(image).error).toBe('VALIDATION_ERROR');

    const small = await buildApp(t.deps, { maxUploadBytes: 1024 });
    try {
      const one = multipart({ name: 'big.txt', type: 'text/plain', body: 'x'.repeat(5000) });
      const tooLarge = await small.inject({ method: 'POST', url: '/v1/save', headers: { authorization: `Bearer ${t.key}`, ...one.headers }, payload: one.payload });
      expect(tooLarge.statusCode).toBe(413);
      expect(json(tooLarge).error).toBe('CONTENT_TOO_LARGE');
    } finally {
      await small.close();
    }
    const noFile = await t.request({
      method: 'POST',
      url: '/v1/save',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      payload: '--abc\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--abc--\r\n',
    });
    expect(noFile.statusCode).toBe(400);
  });

  it('sync ingest returns per-item results; bad items and too many items are refused', async () => {
    const sync = await t.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: {
        async: false,
        items: [{ content: 'Ingested note about kites.', tags: ['kites'] }, { url: `${site.origin}/notes.md` }, { url: `${site.origin}/missing` }],
      },
    });
    expect(sync.statusCode, sync.body).toBe(200);
    const body = json(sync);
    expect(body.processed).toBe(3);
    expect(body.results[0]).toMatchObject({ index: 0, success: true, documentId: expect.stringMatching(/^mem_/) });
    expect(body.results[1]).toMatchObject({ index: 1, success: true });
    expect(body.results[2]).toMatchObject({ index: 2, success: false, error: expect.stringMatching(/INVALID_URL: HTTP 404/) });

    const invalid = await t.request({ method: 'POST', url: '/v1/ingest', payload: { items: [{ content: 'ok' }, { title: 'no text' }, { content: '  ' }] } });
    expect(invalid.statusCode).toBe(400);
    expect(json(invalid)).toMatchObject({ error: 'VALIDATION_ERROR', invalidIndices: [1, 2] });

    const user = json(await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'ingest@example.org', name: 'I', tier: 'free' } }));
    const tooMany = await t.app.inject({
      method: 'POST',
      url: '/v1/ingest',
      headers: { authorization: `Bearer ${user.key.key}` },
      payload: { items: [{ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' }] },
    });
    expect(tooMany.statusCode).toBe(413);
    expect(json(tooMany).error).toBe('LIMIT_EXCEEDED');
    const badHook = await t.request({ method: 'POST', url: '/v1/ingest', payload: { items: [{ content: 'a' }], webhook: 'ftp://x' } });
    expect(badHook.statusCode).toBe(400);
    const missing = await t.request({ method: 'GET', url: '/v1/ingest/status/job_01JD3V6Q8X4Z5C2B7N9M0K1H2G' });
    expect(missing.statusCode).toBe(404);
  });

  it('an async job reports progress and calls a webhook that fails twice, signed, with every attempt visible', async () => {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    let calls = 0;
    const receiver: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        calls++;
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (calls === 1) response.writeHead(500).end('try later');
        else if (calls === 2) response.destroy();
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const accepted = await t.request({
        method: 'POST',
        url: '/v1/ingest',
        payload: { webhook: hook, items: [{ content: 'Async note one about owls.' }, { content: 'Async note two about bats.' }, { url: `${site.origin}/missing` }] },
      });
      expect(accepted.statusCode, accepted.body).toBe(201);
      const { jobId, statusUrl, itemCount } = json(accepted);
      expect(itemCount).toBe(3);
      expect(statusUrl).toBe(`/v1/ingest/status/${jobId}`);
      const done = await waitFor(
        async () => json(await t.request({ method: 'GET', url: statusUrl })),
        (status) => status.webhook?.delivered === true,
      );
      expect(done).toMatchObject({ status: 'completed', progress: { total: 3, completed: 2, failed: 1, percentage: 100 } });
      expect(done.errors).toEqual([{ index: 2, error: expect.stringMatching(/404/) }]);
      expect(done.documents).toHaveLength(2);
      expect(done.webhook.attempts.map((a: { status: number | null }) => a.status)).toEqual([500, null, 204]);

      const secret = json(await t.request({ method: 'GET', url: '/v1/webhooks/secret' })).secret as string;
      expect(secret).toMatch(/^whsec_/);
      const last = received.at(-1)!;
      const payload = JSON.parse(last.body);
      expect(payload).toMatchObject({ event: 'ingest.completed', jobId, results: { total: 3, successful: 2, failed: 1 } });
      expect(payload.documents).toEqual(done.documents);
      const signature = String(last.headers['x-mem-signature']);
      expect(verifySignature(secret, String(last.headers['x-mem-timestamp']), last.body, signature)).toBe(true);
      expect(verifySignature('whsec_other', String(last.headers['x-mem-timestamp']), last.body, signature)).toBe(false);
      expect(new Set(received.map((r) => r.headers['x-mem-delivery'])).size).toBe(1);

      const jobs = json(await t.request({ method: 'GET', url: '/v1/jobs' })).jobs;
      expect(jobs.map((job: { jobId: string }) => job.jobId)).toContain(jobId);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('fetches at most 8 URLs at once, while the text items of the same job go on', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let open = 0;
    let most = 0;
    site.route('/gated.txt', (_request, response) => {
      open += 1;
      most = Math.max(most, open);
      void gate.then(() => {
        open -= 1;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('A gated page about fjords.');
      });
    });
    const urls = Array.from({ length: 12 }, (_, i) => ({ url: `${site.origin}/gated.txt?n=${i}` }));
    const texts = Array.from({ length: 20 }, (_, i) => ({ content: `Text item ${i} about the fjords of Norway.` }));
    const accepted = await t.request({ method: 'POST', url: '/v1/ingest', payload: { items: [...urls, ...texts], async: true } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const statusUrl = json(accepted).statusUrl;
    // Every text item is stored while the fetches wait at the gate.
    const midway = await waitFor(async () => json(await t.request({ method: 'GET', url: statusUrl })), (s) => s.progress.completed >= 20);
    expect(midway.status).toBe('processing');
    expect(open).toBe(8);
    // The jobs list and GET /v1/jobs/:id show the same live progress (on a store of its own the stored
    // counters are written at the job's status changes only).
    const listed = json(await t.request({ method: 'GET', url: '/v1/jobs' }));
    expect(listed.jobs.find((job: { jobId: string }) => job.jobId === json(accepted).jobId)).toMatchObject({ status: 'processing', progress: { completed: midway.progress.completed } });
    const single = json(await t.request({ method: 'GET', url: `/v1/jobs/${json(accepted).jobId}` }));
    expect(single).toMatchObject({ status: 'processing', progress: { completed: midway.progress.completed } });
    release();
    const done = await waitFor(async () => json(await t.request({ method: 'GET', url: statusUrl })), (s) => s.status === 'completed');
    expect(done.progress).toMatchObject({ completed: 32, failed: 0 });
    expect(most).toBe(8);
  });

  it('a free account runs one job at a time: the next waits in pending', async () => {
    const user = json(await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'queue@example.org', name: 'Q', tier: 'free' } }));
    const as = (options: object) => t.app.inject({ ...options, headers: { authorization: `Bearer ${user.key.key}` } } as never);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    site.route('/slow.txt', (_request, response) => void gate.then(() => response.writeHead(200, { 'content-type': 'text/plain' }).end('Slow page about glaciers.')));
    const first = json(await as({ method: 'POST', url: '/v1/ingest', payload: { items: [{ url: `${site.origin}/slow.txt` }] } }));
    const second = json(await as({ method: 'POST', url: '/v1/ingest', payload: { items: [{ content: 'Waits for the first job.' }] } }));
    await waitFor(async () => json(await as({ method: 'GET', url: first.statusUrl })), (s) => s.status === 'processing');
    const waiting = json(await as({ method: 'GET', url: second.statusUrl }));
    expect(waiting).toMatchObject({ status: 'pending', startedAt: null });
    release();
    const done = await waitFor(async () => json(await as({ method: 'GET', url: second.statusUrl })), (s) => s.status === 'completed');
    expect(done.progress.completed).toBe(1);
    expect(json(await as({ method: 'GET', url: first.statusUrl })).status).toBe('completed');
  });

  it("saves a job's text items in batches (one save call, one job-items append per batch); an item over the size limit fails alone", async () => {
    const memories = t.deps.memories;
    const jobItems = t.deps.storage.jobItems;
    const saveMany = vi.spyOn(memories, 'saveMany');
    const append = vi.spyOn(jobItems, 'append');
    try {
      const items = Array.from({ length: 140 }, (_, i) => ({ content: `Batched note ${i}: the tide tables for the harbour change on day ${i % 5}.`, tags: ['batched'] }));
      items[7] = { content: 'x'.repeat(101 * 1024), tags: ['batched'] };
      // The earlier tests' last request leaves the pace yielding for its quiet period: wait until it is over,
      // so the job runs as on a daemon nobody else is using.
      await vi.waitFor(() => expect(t.deps.load.pace.load().allowed).toBe(Number.POSITIVE_INFINITY), { timeout: 5000, interval: 20 });
      const accepted = json(await t.request({ method: 'POST', url: '/v1/ingest', payload: { items, turbo: true } }));
      await t.deps.ingest.onIdle();
      const status = json(await t.request({ method: 'GET', url: accepted.statusUrl }));
      expect(status.progress).toMatchObject({ total: 140, completed: 139, failed: 1 });
      expect(status.errors).toEqual([{ index: 7, error: expect.stringMatching(/^CONTENT_TOO_LARGE: /) }]);
      // Nobody else used the daemon, so the pace let each batch run whole: 128 items (half of
      // ingest.concurrency) and 12, not 140 saves.
      const sizes = saveMany.mock.calls.map(([, inputs]) => inputs.length).sort((a, b) => b - a);
      expect(sizes).toEqual([128, 12]);
      const appended = append.mock.calls.map(([rows]) => rows.length).sort((a, b) => b - a);
      expect(appended).toEqual([128, 12]);
      const listed = json(await t.request({ method: 'GET', url: '/v1/memories?tags=batched&limit=100' }));
      expect(listed.pagination.total).toBe(139);
    } finally {
      saveMany.mockRestore();
      append.mockRestore();
    }
  });
});
