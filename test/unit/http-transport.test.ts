import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemClient } from '../../src/client/http-client.js';
import { MemError } from '../../src/errors.js';

/** The client's JSON routes over node:http (src/client/http-transport.ts) against scripted servers. */
let server: Server | undefined;
let connections = 0;

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
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

describe('MemClient over node:http', () => {
  it('sends the key, validates the answer, and reuses one connection', async () => {
    const seen: { method?: string; url?: string; authorization?: string }[] = [];
    const url = await serve((request, response) => {
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: true, message: 'Deleted' }));
    });
    const client = new MemClient({ baseUrl: url, apiKey: 'svc_live_test' });
    expect(await client.deleteMemory('mem_1')).toEqual({ success: true, message: 'Deleted' });
    await client.deleteMemory('mem_2');
    expect(seen.map((request) => [request.method, request.url?.split('/').pop(), request.authorization])).toEqual([
      ['DELETE', 'mem_1', 'Bearer svc_live_test'],
      ['DELETE', 'mem_2', 'Bearer svc_live_test'],
    ]);
    expect(connections).toBe(1);
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
