import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemClient, type AskStreamEvent } from '../../src/client/http-client.js';
import { parseResponse } from '../../src/client/socket-http.js';
import { MemError } from '../../src/errors.js';

/**
 * The client's JSON routes over a plain socket (src/client/socket-http.ts) and its streamed routes over node:http
 * (src/client/http-transport.ts), against scripted node:http servers.
 */
let server: Server | undefined;
let connections = 0;

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  vi.unstubAllGlobals();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
  connections = 0;
});

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MemError);
  return error as MemError;
}

describe('MemClient JSON routes over a socket', () => {
  it('sends the method, path, key and body, validates the answer, and closes each connection', async () => {
    vi.stubGlobal('fetch', () => {
      throw new Error('fetch was called');
    });
    const seen: { method?: string; url?: string; authorization?: string; connection?: string; type?: string; body: string }[] = [];
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const { authorization, connection } = request.headers;
        seen.push({ method: request.method, url: request.url, authorization, connection, type: request.headers['content-type'], body });
        response.writeHead(request.method === 'DELETE' ? 200 : 201, { 'content-type': 'application/json' });
        response.end(JSON.stringify(request.method === 'DELETE' ? { success: true, message: 'Deleted' } : { success: true, documentId: 'mem_01M889571WANASDGGNMMDD6VKV', processingTime: 3 }));
      });
    });
    const client = new MemClient({ baseUrl: url, apiKey: 'svc_live_test' });
    expect(await client.deleteMemory('mem_1')).toEqual({ success: true, message: 'Deleted' });
    expect(await client.turboSave({ content: 'Zoë in Zürich: 東京 ✓' })).toEqual({ success: true, documentId: 'mem_01M889571WANASDGGNMMDD6VKV', processingTime: 3 });
    expect(seen).toEqual([
      { method: 'DELETE', url: '/v1/memory/mem_1', authorization: 'Bearer svc_live_test', connection: 'close', type: undefined, body: '' },
      {
        method: 'POST',
        url: '/v1/turbo/save',
        authorization: 'Bearer svc_live_test',
        connection: 'close',
        type: 'application/json',
        body: JSON.stringify({ content: 'Zoë in Zürich: 東京 ✓' }),
      },
    ]);
    expect(connections).toBe(2);
  });

  it('reads answers framed by chunks, and refuses a key with a line break before sending anything', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Two writes before end: node:http frames them as chunks.
      response.write('{"success":true,');
      response.end('"message":"Deleted ✓"}');
    });
    expect(await new MemClient({ baseUrl: url }).deleteMemory('mem_1')).toEqual({ success: true, message: 'Deleted ✓' });
    const injected = await failure(new MemClient({ baseUrl: url, apiKey: 'svc_live_test\r\nx-evil: 1' }).deleteMemory('mem_1'));
    expect(injected.code).toBe('DAEMON_UNREACHABLE');
    expect(connections).toBe(1);
  });

  it('is done when the answer is whole, even if the other end keeps the connection open', async () => {
    const raw = createNetServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: 40\r\n\r\n{"success":true,"message":"Deleted ✓"}'));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const client = new MemClient({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, timeoutMs: 5000 });
      expect(await client.deleteMemory('mem_1')).toEqual({ success: true, message: 'Deleted ✓' });
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('parses answers whole, and turns a cut-short or foreign one down', () => {
    const answer = (text: string) => parseResponse(Buffer.from(text, 'utf8'));
    expect(answer('HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\n{}{}extra')).toEqual({ status: 404, ok: false, text: '{}{}' });
    expect(answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n')).toEqual({ status: 200, ok: true, text: 'abc0123456789' });
    expect(answer('HTTP/1.0 204 No Content\r\n\r\n')).toEqual({ status: 204, ok: true, text: '' });
    expect(() => answer('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort')).toThrow(/before the whole answer/);
    expect(() => answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab')).toThrow(/chunked/);
    expect(() => answer('HTTP/1.1 200 OK\r\nContent-Length: 2')).toThrow(/before a whole HTTP answer/);
    expect(() => answer('SSH-2.0-OpenSSH\r\n\r\n')).toThrow(/Not an HTTP answer/);
  });

  it('turns the error envelope into a MemError with its code and hint', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: false, error: 'NOT_FOUND', message: 'Memory not found', hint: 'List them with mem ls' }));
    });
    const error = await failure(new MemClient({ baseUrl: url }).getMemory('mem_x'));
    expect([error.code, error.message, error.hint]).toEqual(['NOT_FOUND', 'Memory not found', 'List them with mem ls']);
  });

  it('says so when the answer is not JSON or not what the contract says', async () => {
    let body = '<html>proxy error</html>';
    const url = await serve((_request, response) => {
      response.writeHead(200);
      response.end(body);
    });
    const client = new MemClient({ baseUrl: url });
    expect((await failure(client.getMemory('mem_x'))).message).toBe('The daemon sent a response that is not JSON (HTTP 200).');
    body = JSON.stringify({ success: true, data: { id: 42 } });
    const unexpected = await failure(client.getMemory('mem_x'));
    expect(unexpected.code).toBe('INTERNAL_ERROR');
    expect(unexpected.message).toMatch(/^Unexpected response from GET \/v1\/\w+\/mem_x: /);
  });

  it('gives DAEMON_UNREACHABLE when nothing listens, and when the daemon does not answer in time', async () => {
    const url = await serve(() => {
      // never answers
    });
    const slow = await failure(new MemClient({ baseUrl: url }).health(200));
    expect([slow.code, slow.message]).toEqual(['DAEMON_UNREACHABLE', `The daemon at ${url} did not answer in time.`]);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const down = await failure(new MemClient({ baseUrl: url }).health(1000));
    expect([down.code, down.message]).toEqual(['DAEMON_UNREACHABLE', `No mem daemon is answering at ${url}.`]);
  });
});

const DONE = {
  success: true,
  answer: 'Met Sarah Chen',
  confidence: 0.46,
  tokensUsed: 16,
  noResult: false,
  sources: [{ id: 'mem_01M87KH0MY7TVAY7AACQJZE5MX', title: 'Met Sarah Chen from Globex' }],
  model: 'builtin/extractive',
};

function sse(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

async function collect(stream: AsyncIterable<AskStreamEvent>): Promise<AskStreamEvent[]> {
  const events: AskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Streamed answers (ask, export) over node:http too: a one-shot `mem ask` must not load Node's fetch. */
describe('MemClient streams over node:http', () => {
  it('never calls fetch for ask or export', async () => {
    vi.stubGlobal('fetch', () => {
      throw new Error('fetch was called');
    });
    const url = await serve((request, response) => {
      if (request.url === '/v1/ask') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(sse('delta', { text: 'Met' }) + sse('done', DONE));
      } else {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        response.end('{"a":1}\n{"b":2}\n');
      }
    });
    const client = new MemClient({ baseUrl: url, apiKey: 'svc_live_test' });
    expect(await collect(client.askStream({ query: 'Who is Sarah?' }))).toEqual([
      { type: 'delta', text: 'Met' },
      { type: 'done', response: DONE },
    ]);
    const lines: string[] = [];
    for await (const line of client.exportLines()) lines.push(line);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reads events split anywhere across chunks, multi-byte characters included', async () => {
    const body = Buffer.from(sse('delta', { text: 'Zoë' }) + sse('delta', { text: ' in Zürich' }) + sse('done', DONE));
    const seen: { body?: string; accept?: string; authorization?: string }[] = [];
    const url = await serve((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', async () => {
        seen.push({ body: text, accept: request.headers.accept, authorization: request.headers.authorization });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // One byte at a time: every event boundary and the bytes of ë and ü fall between chunks.
        for (const byte of body) {
          response.write(Buffer.from([byte]));
          await new Promise((resolve) => setImmediate(resolve));
        }
        response.end();
      });
    });
    const events = await collect(new MemClient({ baseUrl: url, apiKey: 'svc_live_test' }).askStream({ query: 'Who?' }));
    expect(events).toEqual([
      { type: 'delta', text: 'Zoë' },
      { type: 'delta', text: ' in Zürich' },
      { type: 'done', response: DONE },
    ]);
    expect(seen).toEqual([{ body: JSON.stringify({ query: 'Who?', stream: true }), accept: 'text/event-stream', authorization: 'Bearer svc_live_test' }]);
  });

  it('turns an envelope before the stream, an error event, a bad event and an early end into MemErrors', async () => {
    let reply = (response: ServerResponse) => {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: false, error: 'RATE_LIMITED', message: 'Slow down', hint: 'Wait a minute' }));
    };
    const url = await serve((_request, response) => reply(response));
    const client = new MemClient({ baseUrl: url });
    const limited = await failure(collect(client.askStream({ query: 'Who?' })));
    expect([limited.code, limited.message, limited.hint]).toEqual(['RATE_LIMITED', 'Slow down', 'Wait a minute']);

    reply = (response) => {
      response.writeHead(502);
      response.end('<html>bad gateway</html>');
    };
    const proxy = await failure(collect(client.askStream({ query: 'Who?' })));
    expect([proxy.code, proxy.message]).toEqual(['INTERNAL_ERROR', 'HTTP 502']);

    reply = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse('delta', { text: 'Met' }) + sse('error', { success: false, error: 'MODEL_UNAVAILABLE', message: 'The model stopped' }));
    };
    const stopped = await failure(collect(client.askStream({ query: 'Who?' })));
    expect([stopped.code, stopped.message]).toEqual(['MODEL_UNAVAILABLE', 'The model stopped']);

    reply = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse('done', { success: true, answer: 42 }));
    };
    const malformed = await failure(collect(client.askStream({ query: 'Who?' })));
    expect(malformed.message).toMatch(/^Unexpected final event from POST \/v1\/ask: /);

    reply = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse('delta', { text: 'Met' }));
    };
    const short = await failure(collect(client.askStream({ query: 'Who?' })));
    expect([short.code, short.message]).toEqual(['INTERNAL_ERROR', 'The answer stream ended before its final event.']);
  });

  it('gives DAEMON_UNREACHABLE when nothing listens, and ends a stream that outlives the timeout', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse('delta', { text: 'Met' }));
      // and never ends
    });
    const events: AskStreamEvent[] = [];
    const stalled = collect(
      (async function* () {
        for await (const event of new MemClient({ baseUrl: url, timeoutMs: 300 }).askStream({ query: 'Who?' })) {
          events.push(event);
          yield event;
        }
      })(),
    );
    // As fetch: the reason of the client's AbortSignal.timeout.
    await expect(stalled).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(events).toEqual([{ type: 'delta', text: 'Met' }]);

    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const down = await failure(collect(new MemClient({ baseUrl: url }).askStream({ query: 'Who?' })));
    expect([down.code, down.message]).toEqual(['DAEMON_UNREACHABLE', `No mem daemon is answering at ${url}.`]);
    const exportDown = await failure(collect(new MemClient({ baseUrl: url }).exportLines() as AsyncIterable<never>));
    expect(exportDown.code).toBe('DAEMON_UNREACHABLE');
  });
});

describe('MemClient and a busy daemon', () => {
  /** The envelope the daemon's admission answers with when a lane's queue is full (core/scheduling/admission.ts). */
  const BUSY = { error: 'RATE_LIMITED', message: 'Rate limit exceeded', retryAfter: 1, details: { reason: 'busy', lane: 'search', queued: 40 } };
  /** A plan's rate limit: also 429, but retrying at once would only be refused again. */
  const PLAN_LIMIT = { error: 'RATE_LIMITED', message: 'Rate limit exceeded', retryAfter: 30, usage: { requestsThisHour: 1000, limit: 1000 } };

  /** Answers the first `refusals` requests with `envelope` (429), then `answer`. */
  async function refusing(refusals: number, envelope: object, answer: (response: ServerResponse) => void): Promise<{ url: string; requests: () => number }> {
    let requests = 0;
    const url = await serve((request, response) => {
      request.resume();
      request.on('end', () => {
        requests += 1;
        if (requests <= refusals) {
          response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          response.end(JSON.stringify(envelope));
        } else answer(response);
      });
    });
    return { url, requests: () => requests };
  }
  const saved = (response: ServerResponse) => {
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: true, documentId: 'mem_01M889571WANASDGGNMMDD6VKV', processingTime: 3 }));
  };

  it('sends a request the busy daemon refused again after its Retry-After, when asked to', async () => {
    const { url, requests } = await refusing(1, BUSY, saved);
    const client = new MemClient({ baseUrl: url, apiKey: 'svc_live_test', busyRetries: 3 });
    expect(await client.turboSave({ content: 'Met Sarah in Berlin' })).toMatchObject({ success: true });
    expect(requests()).toBe(2);
  });

  it('gives up with the 429 after busyRetries, and by default at the first', async () => {
    const stubborn = await refusing(10, BUSY, saved);
    const error = await failure(new MemClient({ baseUrl: stubborn.url, busyRetries: 1 }).turboSave({ content: 'x' }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(stubborn.requests()).toBe(2);
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    const once = await refusing(1, BUSY, saved);
    expect((await failure(new MemClient({ baseUrl: once.url }).turboSave({ content: 'x' }))).code).toBe('RATE_LIMITED');
    expect(once.requests()).toBe(1);
  });

  it('never retries a plan rate limit', async () => {
    const { url, requests } = await refusing(1, PLAN_LIMIT, saved);
    const error = await failure(new MemClient({ baseUrl: url, busyRetries: 3 }).turboSave({ content: 'x' }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(requests()).toBe(1);
  });

  it('retries a streamed ask the same way', async () => {
    const { url, requests } = await refusing(1, BUSY, (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse('delta', { text: 'Berlin' }) + sse('done', DONE));
    });
    const events = await collect(new MemClient({ baseUrl: url, busyRetries: 2 }).askStream({ query: 'Where did I meet Sarah?' }));
    expect(events).toEqual([
      { type: 'delta', text: 'Berlin' },
      { type: 'done', response: DONE },
    ]);
    expect(requests()).toBe(2);
  });
});
