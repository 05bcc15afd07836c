import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A fake Ollama server that speaks the real REST protocol (ollama-js `src/interfaces.ts`, Ollama `docs/api.md`),
 * so adapters are tested through the real `ollama` client and real HTTP: status codes, error bodies, NDJSON
 * streaming with `stream` defaulting to true, and a model registry that answers 404 for models not pulled.
 */

export type FakeOllamaRoute = 'tags' | 'version' | 'show' | 'embed' | 'chat' | 'generate';

/** One scripted answer; a route's queued answers are used in order, then the default behaviour resumes. */
export type FakeOllamaResponse =
  /** Any JSON body, e.g. a wrong shape to test validation. */
  | { readonly kind: 'json'; readonly body: unknown; readonly status?: number; readonly delayMs?: number }
  /** Raw NDJSON lines; `hangAfter` keeps the stream open after the last chunk (a stalled generation). */
  | {
      readonly kind: 'ndjson';
      readonly chunks: readonly unknown[];
      readonly status?: number;
      readonly delayMs?: number;
      readonly hangAfter?: boolean;
    }
  /** An Ollama error: `{"error": "..."}` with the status. */
  | { readonly kind: 'error'; readonly status: number; readonly error: string; readonly delayMs?: number }
  /** chat/generate only: this assistant text, framed as the request asks (streamed pieces or one object). */
  | { readonly kind: 'text'; readonly content: string | readonly string[]; readonly delayMs?: number }
  /** Any bytes, e.g. a body that is not JSON. */
  | {
      readonly kind: 'raw';
      readonly body: string;
      readonly status?: number;
      readonly contentType?: string;
      readonly delayMs?: number;
    }
  /** The default answer, late. */
  | { readonly kind: 'delay'; readonly delayMs: number }
  /** Never answers: for timeout tests. `close()` destroys the socket. */
  | { readonly kind: 'hang' };

export interface FakeOllamaRequest {
  readonly method: string;
  readonly path: string;
  readonly route: FakeOllamaRoute | undefined;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined for no body or one that is not JSON (see rawBody). */
  readonly body: unknown;
  readonly rawBody: string;
}

export interface ReplyInput {
  readonly route: 'chat' | 'generate';
  readonly model: string;
  /** The prompt (generate) or the last user message (chat). */
  readonly prompt: string;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface FakeOllamaOptions {
  /** Installed models; a name without a tag means `:latest`, as in Ollama. */
  readonly models?: readonly string[];
  /** Vector length of the default embedding. */
  readonly dimension?: number;
  /** Replaces the default embedding (hashed bag of words). */
  readonly embed?: (text: string, model: string) => number[];
  /** The assistant text for chat/generate when no response is scripted. */
  readonly reply?: (input: ReplyInput) => string;
}

export interface FakeOllamaScript {
  /** Queues answers for a route; each request to it takes the next one. */
  enqueue(route: FakeOllamaRoute, ...responses: FakeOllamaResponse[]): void;
  pending(route: FakeOllamaRoute): number;
  clear(): void;
}

export interface FakeOllama {
  /** Base URL, e.g. `http://127.0.0.1:54321`, to pass as the Ollama host. */
  readonly url: string;
  readonly requests: FakeOllamaRequest[];
  readonly script: FakeOllamaScript;
  /** Live list of installed models: push to simulate `ollama pull`. */
  readonly models: string[];
  /** Resolves once at least `count` requests have arrived (optionally only to `route`). */
  waitForRequests(count: number, route?: FakeOllamaRoute): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_OLLAMA_VERSION = '0.12.0';
const DEFAULT_MODELS = ['nomic-embed-text', 'llama3.2'];
const DEFAULT_DIMENSION = 768;
const CREATED_AT = '2025-01-01T00:00:00.000000Z';

const ROUTES: Record<string, { readonly method: 'GET' | 'POST'; readonly route: FakeOllamaRoute }> = {
  '/api/tags': { method: 'GET', route: 'tags' },
  '/api/version': { method: 'GET', route: 'version' },
  '/api/show': { method: 'POST', route: 'show' },
  '/api/embed': { method: 'POST', route: 'embed' },
  '/api/chat': { method: 'POST', route: 'chat' },
  '/api/generate': { method: 'POST', route: 'generate' },
};

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = [...(options.models ?? DEFAULT_MODELS)];
  const dimension = options.dimension ?? DEFAULT_DIMENSION;
  const embed = options.embed ?? ((text: string) => fakeEmbedding(text, dimension));
  const reply = options.reply ?? defaultReply;
  const requests: FakeOllamaRequest[] = [];
  const queues = new Map<FakeOllamaRoute, FakeOllamaResponse[]>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();

  const script: FakeOllamaScript = {
    enqueue(route, ...responses) {
      const queue = queues.get(route) ?? [];
      queue.push(...responses);
      queues.set(route, queue);
    },
    pending: (route) => queues.get(route)?.length ?? 0,
    clear: () => queues.clear(),
  };

  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const isInstalled = (name: string): boolean => models.some((m) => withTag(m) === withTag(name));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const known = ROUTES[path];
    let body: unknown;
    let parseError: string | undefined;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch (error) {
        parseError = error instanceof Error ? error.message : String(error);
      }
    }
    requests.push({
      method: request.method ?? 'GET',
      path,
      route: known?.route,
      headers: request.headers,
      body,
      rawBody,
    });
    for (const wake of [...waiters]) wake();

    if (!known) return sendText(response, 404, '404 page not found');
    if (request.method !== known.method) return sendText(response, 405, '405 method not allowed');

    const scripted = queues.get(known.route)?.shift();
    if (scripted) {
      if (scripted.kind === 'hang') return;
      if (scripted.delayMs !== undefined) await delay(scripted.delayMs);
      if (response.destroyed) return;
      switch (scripted.kind) {
        case 'json':
          return sendJson(response, scripted.status ?? 200, scripted.body);
        case 'error':
          return sendJson(response, scripted.status, { error: scripted.error });
        case 'raw':
          response.writeHead(scripted.status ?? 200, { 'Content-Type': scripted.contentType ?? 'text/plain' });
          response.end(scripted.body);
          return;
        case 'ndjson':
          return sendNdjson(response, scripted.status ?? 200, scripted.chunks, scripted.hangAfter ?? false);
        case 'text':
        case 'delay':
          break;
      }
    }

    if (known.method === 'POST') {
      if (parseError !== undefined) return sendJson(response, 400, { error: `invalid request body: ${parseError}` });
      if (!isRecord(body)) return sendJson(response, 400, { error: 'missing request body' });
    }
    const fields = isRecord(body) ? body : {};
    const text = scripted?.kind === 'text' ? scripted.content : undefined;

    switch (known.route) {
      case 'version':
        return sendJson(response, 200, { version: FAKE_OLLAMA_VERSION });
      case 'tags':
        return sendJson(response, 200, { models: models.map(describeModel) });
      case 'show':
      case 'embed':
      case 'chat':
      case 'generate': {
        // Older clients send `name`; Ollama still accepts it.
        const model = typeof fields.model === 'string' ? fields.model : typeof fields.name === 'string' ? fields.name : '';
        if (model === '') return sendJson(response, 400, { error: 'model is required' });
        if (!isInstalled(model)) {
          return sendJson(response, 404, { error: `model "${model}" not found, try pulling it first` });
        }
        if (known.route === 'show') return sendJson(response, 200, showModel(model, dimension));
        if (known.route === 'embed') return answerEmbed(response, model, fields, embed);
        return answerGeneration(response, known.route, model, fields, text, reply);
      }
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: String(error) });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake Ollama did not bind a TCP port');
  const { port } = address;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script,
    models,
    waitForRequests(count, route) {
      const reached = () => requests.filter((r) => route === undefined || r.route === route).length >= count;
      if (reached()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          if (!reached()) return;
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging and keep-alive sockets would hold close() open until the client times out.
        server.closeAllConnections();
      });
    },
  };
}

function answerEmbed(
  response: ServerResponse,
  model: string,
  fields: Record<string, unknown>,
  embed: (text: string, model: string) => number[],
): void {
  const input = fields.input;
  const texts = input === undefined ? [] : typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || !texts.every((t): t is string => typeof t === 'string')) {
    return sendJson(response, 400, { error: 'invalid input type' });
  }
  const dimensions = typeof fields.dimensions === 'number' ? fields.dimensions : undefined;
  const embeddings = texts.map((text) => {
    const vector = embed(text, model);
    return dimensions === undefined ? vector : normalise(vector.slice(0, dimensions));
  });
  sendJson(response, 200, {
    model,
    embeddings,
    total_duration: 14_000_000,
    load_duration: 1_000_000,
    prompt_eval_count: texts.reduce((sum, text) => sum + countTokens(text), 0),
  });
}

function answerGeneration(
  response: ServerResponse,
  route: 'chat' | 'generate',
  model: string,
  fields: Record<string, unknown>,
  scriptedText: string | readonly string[] | undefined,
  reply: (input: ReplyInput) => string,
): void {
  const prompt = route === 'chat' ? lastUserMessage(fields.messages) : typeof fields.prompt === 'string' ? fields.prompt : '';
  const hasInput = route === 'chat' ? Array.isArray(fields.messages) && fields.messages.length > 0 : prompt !== '';
  // Real Ollama answers an empty request by loading the model and reporting done_reason "load".
  const pieces =
    scriptedText !== undefined
      ? typeof scriptedText === 'string'
        ? splitPieces(scriptedText)
        : [...scriptedText]
      : hasInput
        ? splitPieces(reply({ route, model, prompt, body: fields }))
        : [];
  const doneReason = scriptedText === undefined && !hasInput ? 'load' : 'stop';
  const chunk = (content: string) => ({
    model,
    created_at: CREATED_AT,
    ...(route === 'chat' ? { message: { role: 'assistant', content } } : { response: content }),
    done: false,
  });
  const final = (content: string) => ({
    ...chunk(content),
    done: true,
    done_reason: doneReason,
    ...(route === 'generate' ? { context: [1, 2, 3] } : {}),
    total_duration: 50_000_000,
    load_duration: 1_000_000,
    prompt_eval_count: countTokens(prompt),
    prompt_eval_duration: 2_000_000,
    eval_count: pieces.length,
    eval_duration: 40_000_000,
  });
  if (fields.stream === false) return sendJson(response, 200, final(pieces.join('')));
  sendNdjson(response, 200, [...pieces.map(chunk), final('')], false);
}

function showModel(model: string, dimension: number): Record<string, unknown> {
  const embedding = isEmbeddingModel(model);
  const architecture = embedding ? 'nomic-bert' : 'llama';
  return {
    modelfile: `FROM ${withTag(model)}`,
    parameters: '',
    template: embedding ? '' : '{{ .Prompt }}',
    details: modelDetails(model),
    model_info: {
      'general.architecture': architecture,
      [`${architecture}.embedding_length`]: embedding ? dimension : 3072,
      [`${architecture}.context_length`]: embedding ? 2048 : 131072,
    },
    capabilities: embedding ? ['embedding'] : ['completion', 'tools'],
    modified_at: CREATED_AT,
  };
}

function describeModel(name: string): Record<string, unknown> {
  const tagged = withTag(name);
  return {
    name: tagged,
    model: tagged,
    modified_at: CREATED_AT,
    size: isEmbeddingModel(name) ? 274_302_450 : 2_019_393_189,
    digest: createHash('sha256').update(tagged).digest('hex'),
    details: modelDetails(name),
  };
}

function modelDetails(name: string): Record<string, unknown> {
  const embedding = isEmbeddingModel(name);
  return {
    parent_model: '',
    format: 'gguf',
    family: embedding ? 'nomic-bert' : 'llama',
    families: [embedding ? 'nomic-bert' : 'llama'],
    parameter_size: embedding ? '137M' : '3.2B',
    quantization_level: embedding ? 'F16' : 'Q4_K_M',
  };
}

/**
 * Deterministic stand-in for a sentence embedding: signed feature hashing of lower-cased words, L2-normalised,
 * so texts sharing words have a high cosine and unrelated texts a cosine near zero.
 */
export function fakeEmbedding(text: string, dimension: number = DEFAULT_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const index = fnv1a(word) % dimension;
    vector[index] = (vector[index] ?? 0) + (fnv1a(`sign:${word}`) & 1 ? 1 : -1);
  }
  // A real model never returns a zero vector; keep empty input normalisable.
  if (words.length === 0) vector[0] = 1;
  return normalise(vector);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

function defaultReply(input: ReplyInput): string {
  // Structured-output requests expect JSON back.
  if (input.body.format !== undefined) return '{}';
  return `You said: ${input.prompt}`;
}

function lastUserMessage(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const message: unknown = messages[i];
    if (isRecord(message) && message.role === 'user' && typeof message.content === 'string') return message.content;
  }
  return '';
}

function splitPieces(text: string): string[] {
  return text.match(/\s*\S+/g) ?? (text === '' ? [] : [text]);
}

function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function withTag(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

function isEmbeddingModel(name: string): boolean {
  return /embed|minilm|bge|e5/i.test(name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain' });
  response.end(text);
}

function sendNdjson(response: ServerResponse, status: number, chunks: readonly unknown[], hangAfter: boolean): void {
  response.writeHead(status, { 'Content-Type': 'application/x-ndjson' });
  for (const chunk of chunks) response.write(`${JSON.stringify(chunk)}\n`);
  if (!hangAfter) response.end();
}
