import { connect } from 'node:net';
import type { TextRequest, TextResponse } from './http-transport.js';

/*
 * One HTTP/1.1 exchange over a plain TCP socket, for the client's JSON routes to an http:// daemon: the
 * request goes with `Connection: close`, the answer is read to the end of the connection and parsed whole.
 * A command run once pays for what it loads and compiles first: node:http's modules and the first calls into
 * its client cost a short-lived process more CPU than this (bench/README.md, "CLI"), and the daemon
 * is Fastify, which frames every JSON answer with Content-Length (chunked framing is read too). Streamed
 * answers (ask, export) and https:// stay on node:http(s) (http-transport.ts).
 */

const HEADER_END = Buffer.from('\r\n\r\n');

/** Rejects like fetch and node:http: the signal's reason when it fires, the socket's error (ECONNREFUSED...). */
export function sendOverSocket(target: URL, init: TextRequest): Promise<TextResponse> {
  const head = requestHead(target, init);
  return new Promise<TextResponse>((resolve, reject) => {
    if (init.signal.aborted) {
      reject(init.signal.reason);
      return;
    }
    const chunks: Buffer[] = [];
    const socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port: Number(target.port) || 80 });
    const onAbort = () => {
      socket.destroy();
      reject(init.signal.reason);
    };
    init.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => init.signal.removeEventListener('abort', onAbort);
    socket.setNoDelay(true);
    // Written, not ended: a server may close a half-closed connection before it answers.
    socket.once('connect', () => socket.write(init.body === undefined ? head : Buffer.concat([head, Buffer.from(init.body, 'utf8')])));
    const finish = () => {
      settle();
      socket.destroy();
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    };
    let received = 0;
    let framing: Framing | undefined;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      // Done as soon as the answer is whole, even if the other end keeps the connection open.
      framing ??= framingOf(Buffer.concat(chunks));
      const whole = framing === 'chunked' ? endsWithLastChunk(chunks) : typeof framing === 'object' && received >= framing.total;
      if (whole) finish();
    });
    socket.once('error', (error) => {
      settle();
      reject(error);
    });
    socket.once('end', finish);
  });
}

function requestHead(target: URL, init: TextRequest): Buffer {
  const lines = [`${init.method} ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`, 'connection: close'];
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  for (const [name, value] of Object.entries(headers)) {
    // As node:http does: a header may not carry a line break (a key pasted with its newline).
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new TypeError(`Invalid character in header "${name}"`);
    lines.push(`${name}: ${value}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** How the answer says where it ends: its total size in bytes, its last chunk, or the end of the connection. */
type Framing = { readonly total: number } | 'chunked' | 'unframed';

/** Whether a chunked answer's bytes end with its last, empty chunk (those 5 bytes may span several reads). */
function endsWithLastChunk(chunks: readonly Buffer[]): boolean {
  return Buffer.concat(chunks.slice(-5)).subarray(-5).toString('latin1') === '0\r\n\r\n';
}

/** The framing of the answer these bytes start, once its headers are all in (undefined before). */
function framingOf(bytes: Buffer): Framing | undefined {
  const end = bytes.indexOf(HEADER_END);
  if (end < 0) return undefined;
  const head = bytes.subarray(0, end).toString('latin1');
  if (/\r\ntransfer-encoding:[^\r]*\bchunked\b/i.test(head)) return 'chunked';
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  return length === undefined ? 'unframed' : { total: end + HEADER_END.length + Number(length) };
}

/** A whole HTTP/1.1 answer (status line, headers, body framed by Content-Length, chunks or the end). */
export function parseResponse(bytes: Buffer): TextResponse {
  const end = bytes.indexOf(HEADER_END);
  if (end < 0) throw new Error('The connection closed before a whole HTTP answer arrived.');
  const [statusLine = '', ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) throw new Error(`Not an HTTP answer: ${statusLine.slice(0, 40)}`);
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = bytes.subarray(end + HEADER_END.length);
  let body: Buffer;
  if (/\bchunked\b/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(rest);
  else if (headers.has('content-length')) {
    const length = Number(headers.get('content-length'));
    if (!Number.isSafeInteger(length) || length < 0 || rest.length < length) throw new Error('The connection closed before the whole answer arrived.');
    body = rest.subarray(0, length);
  } else body = rest;
  const code = Number(status);
  return { status: code, ok: code >= 200 && code < 300, text: body.toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('The connection closed in the middle of a chunked answer.');
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error('A chunked answer had a malformed chunk size.');
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (bytes.length < start + size) throw new Error('The connection closed in the middle of a chunked answer.');
    parts.push(bytes.subarray(start, start + size));
    at = start + size + 2;
  }
}
