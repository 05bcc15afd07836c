import type { Agent, IncomingMessage, request as httpRequest } from 'node:http';
import { sendOverSocket } from './socket-http.js';

/** A response read whole: what the JSON routes of the client need. */
export interface TextResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly text: string;
}

export interface TextRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  readonly signal: AbortSignal;
}

/**
 * Streamed answers and https:// go through these. Free sockets of a keep-alive agent are unref'd by Node, so a
 * session reuses its connection while a one-shot command still exits as soon as it is done.
 */
const agents: Partial<Record<'http:' | 'https:', Agent>> = {};

async function agentFor(protocol: string): Promise<{ agent: Agent; request: typeof httpRequest }> {
  if (protocol === 'https:') {
    const https = await import('node:https');
    agents['https:'] ??= new https.Agent({ keepAlive: true });
    return { agent: agents['https:'], request: https.request };
  }
  // Loaded here: the JSON routes of an http:// daemon never need it (socket-http.ts).
  const http = await import('node:http');
  agents['http:'] ??= new http.Agent({ keepAlive: true });
  return { agent: agents['http:'], request: http.request };
}

/** A response whose headers have arrived: its body is read as it comes (streamed routes) or whole. */
export interface StreamResponse {
  readonly status: number;
  readonly ok: boolean;
  /** The body's chunks as they arrive; throws the socket's error, or the signal's reason when it fires. */
  readonly body: AsyncIterable<Uint8Array>;
  /** The whole body as text (instead of iterating `body`). */
  text(): Promise<string>;
}

/**
 * One request with a text body, resolved when the answer's headers arrive, over node:http(s). The client
 * uses it instead of fetch: a short-lived process pays ~25 ms to load Node's fetch (undici and its WASM
 * parser) and then waits for its idle connection before it can exit (bench/README.md, "CLI"). Rejects like
 * fetch: an AbortError when `signal` fires, the socket's error (ECONNREFUSED...) when nothing answers; a
 * signal that fires while the body streams ends the body with the signal's reason, as fetch's does.
 */
export async function openResponse(url: string, init: TextRequest): Promise<StreamResponse> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`Unsupported protocol ${target.protocol}`);
  const { agent, request } = await agentFor(target.protocol);
  return new Promise<StreamResponse>((resolve, reject) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const outgoing = request(target, { method: init.method, headers, agent, signal: init.signal }, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const body = chunksOf(response, init.signal);
      resolve({ status, ok: status >= 200 && status < 300, body, text: () => readText(body) });
    });
    outgoing.once('error', reject);
    outgoing.end(init.body);
  });
}

/** A response's chunks; when the signal ended it, its reason is thrown (a TimeoutError...), as fetch does. */
async function* chunksOf(response: IncomingMessage, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  try {
    yield* response;
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One request with a text body, answered with the whole text (the client's JSON routes): to an http:// daemon
 * over a plain socket (socket-http.ts), to https:// over node:https.
 */
export async function sendText(url: string, init: TextRequest): Promise<TextResponse> {
  const target = new URL(url);
  if (target.protocol === 'http:') return sendOverSocket(target, init);
  const response = await openResponse(url, init);
  return { status: response.status, ok: response.ok, text: await response.text() };
}
