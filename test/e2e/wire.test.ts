import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The wire contract against the real daemon in its own process, as a client written from SPEC.md sends it
 * (Content-Type: application/json on every request). A dropped connection after an early error answer
 * depends on the server and the client running apart, so the hostile bodies are sent here, not in-process.
 */

const home = tempHome('mem-wire-');
let env: NodeJS.ProcessEnv;
let base: string;
let key: string;

beforeAll(async () => {
  const port = await freePort();
  env = { ...home.env, MEM_PORT: String(port) };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, String(started.stderr)).toBe(0);
  base = `http://127.0.0.1:${port}`;
  key = (await mem(['token'], env)).stdout.trim();
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
});

const headers = () => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });

async function call(method: string, path: string, init: { body?: string | Buffer | ReadableStream<Uint8Array>; headers?: Record<string, string> } = {}) {
  const response = await fetch(base + path, { method, headers: init.headers ?? headers(), ...(init.body !== undefined ? { body: init.body, duplex: 'half' } : {}) } as RequestInit);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the wire contract on the real daemon', () => {
  it('answers oversized bodies sent whole or in chunks, many at once, with a readable 413', async () => {
    const payload = Buffer.from(JSON.stringify({ content: 'x'.repeat(10 * 1024 * 1024) }));
    const chunked = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let index = 0; index < payload.length; index += 64 * 1024) controller.enqueue(payload.subarray(index, index + 64 * 1024));
          controller.close();
        },
      });
    // Before the daemon drained such bodies, a few of these rounds of 24 ended in EPIPE ("fetch failed") in most runs.
    const paths = ['/v1/turbo/save', '/keys', '/v1/save', '/v1/query'];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, index) => call('POST', paths[index % paths.length] as string, { body: index % 2 ? chunked() : payload })),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(413);
        expect(answer.body).toMatchObject({ success: false, error: 'CONTENT_TOO_LARGE', message: expect.any(String) });
      }
    }
  });

  it('takes the spec headers on every kind of request, X-API-Key too, and refuses hostile input with the envelope', async () => {
    const saved = await call('POST', '/v1/turbo/save', { body: JSON.stringify({ content: 'Wire contract note.' }) });
    expect(saved.status).toBe(201);
    const id = saved.body.documentId as string;
    const viaXApiKey = { 'content-type': 'application/json', 'x-api-key': key };
    expect((await call('GET', `/v1/memory/${id}`, { headers: viaXApiKey })).status).toBe(200);
    expect((await call('DELETE', `/v1/memory/${id}`, { headers: viaXApiKey })).status).toBe(200);
    expect(await call('GET', '/v1/memories', { headers: { ...viaXApiKey, authorization: 'Bearer svc_live_other' } })).toMatchObject({
      status: 401,
      body: { success: false, error: 'UNAUTHORIZED' },
    });
    expect(await call('GET', '/v1/memory/%ED%A0%80')).toMatchObject({ status: 400, body: { success: false, error: 'VALIDATION_ERROR' } });
    const deep = `{"content":"x","metadata":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    expect(await call('POST', '/v1/save', { body: deep })).toMatchObject({ status: 400, body: { success: false, error: 'VALIDATION_ERROR' } });
    const async = await call('POST', '/v1/save', { body: JSON.stringify({ content: 'Later.', async: true }) });
    expect(async.status).toBe(201);
    const status = await mem(['status', '--json'], env);
    expect(json(status)).toMatchObject({ success: true });
  });
});
