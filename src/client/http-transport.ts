import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';

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
 * Free sockets of a keep-alive agent are unref'd by Node, so a TUI or MCP session reuses its connection
 * while a one-shot command still exits as soon as it is done.
 */
const agents: Partial<Record<'http:' | 'https:', Agent>> = {};

async function agentFor(protocol: string): Promise<{ agent: Agent; request: typeof httpRequest }> {
  if (protocol === 'https:') {
    const https = await import('node:https');
    agents['https:'] ??= new https.Agent({ keepAlive: true });
    return { agent: agents['https:'], request: https.request };
  }
  agents['http:'] ??= new Agent({ keepAlive: true });
  return { agent: agents['http:'], request: httpRequest };
}

/**
 * One request with a text body, answered with the whole text, over node:http(s). The client's JSON routes
 * use it instead of fetch: a short-lived process pays ~25 ms to load Node's fetch (undici and its WASM
 * parser) and then waits for its idle connection before it can exit (bench/README.md, "CLI"). Rejects like
 * fetch: an AbortError when `signal` fires, the socket's error (ECONNREFUSED...) when nothing answers.
 */
export async function sendText(url: string, init: TextRequest): Promise<TextResponse> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`Unsupported protocol ${target.protocol}`);
  const { agent, request } = await agentFor(target.protocol);
  return new Promise<TextResponse>((resolve, reject) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const outgoing = request(target, { method: init.method, headers, agent, signal: init.signal }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const status = response.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.once('error', reject);
    outgoing.end(init.body);
  });
}
