import type {
  AskBody,
  AskResponse,
  CreateKeyBody,
  CreateUserBody,
  IngestAsyncResponse,
  IngestBody,
  IngestSyncResponse,
  QueryBody,
  RemindBody,
  SaveBody,
  SearchBody,
  TurboAskBody,
  TurboSaveBody,
  UpdateBody,
  UpdateProfileBody,
  UpdateUserBody,
  UsageQuery,
  WatchBody,
} from '../api/contract.js';
import type { ENTITY_SORTS, ENTITY_TYPES, FACT_CATEGORIES } from '../api/contract.js';
import { isErrorCode, MemError } from '../errors.js';
import { parseResponse, type Parsed, type SchemaName } from './parse-response.js';
import { openResponse, sendText, type StreamResponse, type TextResponse } from './http-transport.js';

export interface ExportParams {
  readonly spaceId?: string | undefined;
  /** ISO date or date-time: memories created or updated since. */
  readonly since?: string | undefined;
  readonly withVectors?: boolean | undefined;
}

export interface EntityParams {
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly type?: (typeof ENTITY_TYPES)[number] | undefined;
  readonly search?: string | undefined;
  readonly sortBy?: (typeof ENTITY_SORTS)[number] | undefined;
}

export interface FactParams {
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly entity?: string | undefined;
  readonly category?: (typeof FACT_CATEGORIES)[number] | undefined;
  readonly confidence?: number | undefined;
  readonly includeSuperseded?: boolean | undefined;
}

export interface GraphParams {
  readonly entity?: string | undefined;
  readonly type?: (typeof ENTITY_TYPES)[number] | undefined;
  readonly depth?: number | undefined;
  readonly limit?: number | undefined;
}

/** One event of a streamed answer (`MemClient.askStream`): a piece of text, then the whole response. */
export type AskStreamEvent = { readonly type: 'delta'; readonly text: string } | { readonly type: 'done'; readonly response: AskResponse };

/** An error envelope (or anything else a failing daemon sent) as a MemError with the API's code. */
function errorFromBody(status: number, json: unknown): MemError {
  const errorBody = json as { error?: unknown; message?: unknown; hint?: unknown; details?: unknown } | undefined;
  const code = isErrorCode(errorBody?.error) ? errorBody.error : 'INTERNAL_ERROR';
  const message = typeof errorBody?.message === 'string' ? errorBody.message : `HTTP ${status}`;
  const hint = typeof errorBody?.hint === 'string' ? errorBody.hint : undefined;
  return new MemError(code, message, {
    ...(hint ? { hint } : {}),
    ...(errorBody?.details && typeof errorBody.details === 'object' ? { details: errorBody.details as Record<string, unknown> } : {}),
  });
}

/** Server-sent events from a response body: {event, data} per blank-line-terminated block. */
async function* serverSentEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  const blocks = function* (): Generator<{ event: string; data: string }> {
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    yield* blocks();
  }
  buffer += decoder.decode();
  yield* blocks();
}

/** The body of a failed streamed request, as JSON when it is. */
async function jsonOrUndefined(response: StreamResponse): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
  readonly timeoutMs?: number;
  /** Every request goes through this fetch when given (tests); by default JSON routes use node:http. */
  readonly fetch?: typeof fetch;
  /**
   * Times a request is sent again after the daemon refused it for being busy (429 RATE_LIMITED with
   * `details.reason: "busy"`: its lane's queue was full, so nothing of it ran), each after the
   * answer's Retry-After (at most MAX_BUSY_WAIT_S). 0 by default: a program sees the 429 and decides; the CLI
   * and the TUI wait, as a person would, rather than fail while agents keep the daemon busy. A plan's rate
   * limits (also 429, another reason) are never retried.
   */
  readonly busyRetries?: number;
}

/** Longest wait before a busy request is sent again, whatever Retry-After says. */
const MAX_BUSY_WAIT_S = 5;

/**
 * How long to wait before sending a request again that the daemon refused as busy (see
 * ClientOptions.busyRetries), in ms; undefined for any other answer.
 */
export function busyRetryDelayMs(status: number, text: string): number | undefined {
  if (status !== 429) return undefined;
  let body: { error?: unknown; retryAfter?: unknown; details?: { reason?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return undefined;
  }
  if (body?.error !== 'RATE_LIMITED' || body.details?.reason !== 'busy') return undefined;
  const seconds = typeof body.retryAfter === 'number' && body.retryAfter > 0 ? body.retryAfter : 1;
  return Math.min(seconds, MAX_BUSY_WAIT_S) * 1000;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ListParams {
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly spaceId?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly after?: string | undefined;
  readonly before?: string | undefined;
}

/**
 * The typed HTTP client of the Memory API: one method per route. The CLI, the TUI and other programs
 * reach the daemon only through it. Responses are validated with the shared contract; failures become
 * MemErrors carrying the API's code (or DAEMON_UNREACHABLE when nothing answers).
 */
export class MemClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly customFetch: boolean;
  private readonly busyRetries: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.fetchImpl = options.fetch ?? fetch;
    this.customFetch = options.fetch !== undefined;
    this.busyRetries = options.busyRetries ?? 0;
  }

  /** A streamed answer (ask, export) over node:http, or through the custom fetch when one was given. */
  private async open(path: string, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }): Promise<StreamResponse> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.openOnce(path, init);
      if (response.status !== 429 || attempt >= this.busyRetries) return response;
      const text = await response.text();
      const delay = busyRetryDelayMs(response.status, text);
      if (delay === undefined) return { status: response.status, ok: false, body: (async function* () {})(), text: () => Promise.resolve(text) };
      await pause(delay);
    }
  }

  private async openOnce(path: string, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }): Promise<StreamResponse> {
    if (!this.customFetch) return openResponse(this.baseUrl + path, init);
    const response = await this.fetchImpl(this.baseUrl + path, init);
    const body = response.body ?? (async function* () {})();
    return { status: response.status, ok: response.ok, body: body as AsyncIterable<Uint8Array>, text: () => response.text() };
  }

  /** send, again after a busy daemon's Retry-After, up to busyRetries times. */
  private async send(path: string, init: { method: string; headers: Record<string, string>; body?: string | FormData; signal: AbortSignal }): Promise<TextResponse> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.sendOnce(path, init);
      const delay = attempt < this.busyRetries ? busyRetryDelayMs(response.status, response.text) : undefined;
      if (delay === undefined) return response;
      await pause(delay);
    }
  }

  /** A JSON body over node:http (see http-transport.ts), a form or a custom fetch through fetch. */
  private async sendOnce(path: string, init: { method: string; headers: Record<string, string>; body?: string | FormData; signal: AbortSignal }): Promise<TextResponse> {
    if (this.customFetch || (init.body !== undefined && typeof init.body !== 'string')) {
      const response = await this.fetchImpl(this.baseUrl + path, init);
      return { status: response.status, ok: response.ok, text: await response.text() };
    }
    return sendText(this.baseUrl + path, { method: init.method, headers: init.headers, body: init.body, signal: init.signal });
  }

  private async request<N extends SchemaName>(
    schema: N,
    method: string,
    path: string,
    body?: unknown,
    options: { timeoutMs?: number; auth?: boolean; form?: FormData } = {},
  ): Promise<Parsed<N>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // FormData sets its own multipart content type (with the boundary).
    if (body !== undefined && !options.form) headers['content-type'] = 'application/json';
    if (options.auth !== false && this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let response: TextResponse;
    try {
      response = await this.send(path, {
        method,
        headers,
        ...(options.form ? { body: options.form } : body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new MemError('DAEMON_UNREACHABLE', `The daemon at ${this.baseUrl} did not answer in time.`, {
          hint: 'Check it with `mem daemon status` and its log with `mem daemon logs`.',
        });
      }
      throw new MemError('DAEMON_UNREACHABLE', `No mem daemon is answering at ${this.baseUrl}.`, {
        hint: 'Start it with `mem daemon start` (background) or `mem serve` (foreground), or set MEM_HOST.',
        cause: error,
      });
    }
    const { text } = response;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      throw new MemError('INTERNAL_ERROR', `The daemon sent a response that is not JSON (HTTP ${response.status}).`);
    }
    if (!response.ok) {
      const errorBody = json as { error?: unknown; message?: unknown; hint?: unknown; details?: unknown } | undefined;
      const code = isErrorCode(errorBody?.error) ? errorBody.error : 'INTERNAL_ERROR';
      const message = typeof errorBody?.message === 'string' ? errorBody.message : `HTTP ${response.status}`;
      const hint = typeof errorBody?.hint === 'string' ? errorBody.hint : undefined;
      throw new MemError(code, message, {
        ...(hint ? { hint } : {}),
        ...(errorBody?.details && typeof errorBody.details === 'object'
          ? { details: errorBody.details as Record<string, unknown> }
          : {}),
      });
    }
    const parsed = await parseResponse(schema, json);
    if (!parsed.success) {
      throw new MemError('INTERNAL_ERROR', `Unexpected response from ${method} ${path}: ${parsed.error.message}`, {
        hint: 'The CLI and the daemon may be different versions; restart the daemon.',
      });
    }
    return parsed.data;
  }

  health(timeoutMs = 2000) {
    return this.request('HealthResponse', 'GET', '/health', undefined, { timeoutMs, auth: false });
  }

  status() {
    return this.request('StatusResponse', 'GET', '/v1/status');
  }

  save(body: SaveBody) {
    return this.request('SaveResponse', 'POST', '/v1/save', body);
  }

  saveStatus(pendingId: string) {
    return this.request('SaveStatusResponse', 'GET', `/v1/save/status/${encodeURIComponent(pendingId)}`);
  }

  getMemory(id: string) {
    return this.request('MemoryResponse', 'GET', `/v1/memory/${encodeURIComponent(id)}`);
  }

  updateMemory(id: string, body: UpdateBody) {
    return this.request('MemoryResponse', 'PATCH', `/v1/memory/${encodeURIComponent(id)}`, body);
  }

  deleteMemory(id: string) {
    return this.request('MessageResponse', 'DELETE', `/v1/memory/${encodeURIComponent(id)}`);
  }

  deleteMemories(ids: readonly string[]) {
    return this.request('BulkDeleteResponse', 'POST', '/v1/memories/delete', { ids });
  }

  listMemories(params: ListParams = {}) {
    const query = new URLSearchParams();
    if (params.limit !== undefined) query.set('limit', String(params.limit));
    if (params.offset !== undefined) query.set('offset', String(params.offset));
    if (params.spaceId !== undefined) query.set('spaceId', params.spaceId);
    if (params.tags && params.tags.length > 0) query.set('tags', params.tags.join(','));
    if (params.after !== undefined) query.set('after', params.after);
    if (params.before !== undefined) query.set('before', params.before);
    const qs = query.toString();
    return this.request('ListResponse', 'GET', `/v1/memories${qs ? `?${qs}` : ''}`);
  }

  search(body: SearchBody) {
    return this.request('SearchResponse', 'POST', '/v1/search', body);
  }

  query(body: QueryBody) {
    return this.request('QueryResponse', 'POST', '/v1/query', body);
  }

  listKeys() {
    return this.request('KeyListResponse', 'GET', '/keys');
  }

  createKey(body: CreateKeyBody) {
    return this.request('KeyResponse', 'POST', '/keys', body);
  }

  regenerateKey(id: string) {
    return this.request('KeyResponse', 'POST', `/keys/${encodeURIComponent(id)}/regenerate`);
  }

  deleteKey(id: string) {
    return this.request('MessageResponse', 'DELETE', `/keys/${encodeURIComponent(id)}`);
  }

  reindex(all = false) {
    return this.request('ReindexResponse', 'POST', '/v1/reindex', { all });
  }

  job(jobId: string) {
    return this.request('JobResponse', 'GET', `/v1/jobs/${encodeURIComponent(jobId)}`);
  }

  ask(body: AskBody) {
    return this.request('AskResponse', 'POST', '/v1/ask', { ...body, stream: false });
  }

  /**
   * Asks with the answer streamed (server-sent events): yields the text as it arrives, then the whole
   * response. Errors before the stream starts, and an `error` event during it, are thrown as MemErrors.
   */
  async *askStream(body: AskBody): AsyncGenerator<AskStreamEvent> {
    const headers: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let response: StreamResponse;
    try {
      response = await this.open('/v1/ask', {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...body, stream: true }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new MemError('DAEMON_UNREACHABLE', `No mem daemon is answering at ${this.baseUrl}.`, {
        hint: 'Start it with `mem daemon start` (background) or `mem serve` (foreground), or set MEM_HOST.',
        cause: error,
      });
    }
    if (!response.ok) throw errorFromBody(response.status, await jsonOrUndefined(response));
    for await (const { event, data } of serverSentEvents(response.body)) {
      const json: unknown = JSON.parse(data);
      if (event === 'delta') {
        const delta = await parseResponse('AskDeltaEvent', json);
        if (!delta.success) throw delta.error;
        yield { type: 'delta', text: delta.data.text };
      }
      else if (event === 'error') throw errorFromBody(500, json);
      else if (event === 'done') {
        const parsed = await parseResponse('AskResponse', json);
        if (!parsed.success) throw new MemError('INTERNAL_ERROR', `Unexpected final event from POST /v1/ask: ${parsed.error.message}`);
        yield { type: 'done', response: parsed.data };
        return;
      }
    }
    throw new MemError('INTERNAL_ERROR', 'The answer stream ended before its final event.', {
      hint: 'The daemon may have stopped; see `mem daemon logs`.',
    });
  }

  remind(body: RemindBody) {
    return this.request('RemindResponse', 'POST', '/v1/remind', body);
  }

  turboSave(body: TurboSaveBody) {
    return this.request('TurboSaveResponse', 'POST', '/v1/turbo/save', body);
  }

  turboAsk(body: TurboAskBody) {
    return this.request('TurboAskResponse', 'POST', '/v1/turbo/ask', body);
  }

  /** GET with a query string of the defined values. */
  private getWith<N extends SchemaName>(schema: N, path: string, params: Record<string, string | number | boolean | undefined>) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
    const qs = query.toString();
    return this.request(schema, 'GET', `${path}${qs ? `?${qs}` : ''}`);
  }

  entities(params: EntityParams = {}) {
    return this.getWith('EntitiesResponse', '/v1/entities', { ...params });
  }

  facts(params: FactParams = {}) {
    return this.getWith('FactsResponse', '/v1/facts', { ...params });
  }

  graph(params: GraphParams = {}) {
    return this.getWith('GraphResponse', '/v1/graph', { ...params });
  }

  extractionStatus(memoryId: string) {
    return this.request('ExtractionStatusResponse', 'GET', `/v1/extract/${encodeURIComponent(memoryId)}`);
  }

  enrich(id: string) {
    return this.request('EnrichResponse', 'POST', `/v1/memory/${encodeURIComponent(id)}/enrich`, {});
  }

  enrichAllTurbo() {
    return this.request('EnrichAllResponse', 'POST', '/v1/enrich', { allTurbo: true });
  }

  retryExtractions() {
    return this.request('ExtractRetryResponse', 'POST', '/v1/extract/retry', {});
  }

  /** Extracts again the memories another model extracted, or every one with `all` (in the background). */
  rerunExtractions(all = false) {
    return this.request('ExtractRerunResponse', 'POST', '/v1/extract/rerun', { all });
  }

  // ---- account ---------------------------------------------------------------------------------------

  usage(params: UsageQuery = {}) {
    return this.getWith('UsageResponse', '/v1/usage', { ...params });
  }

  profile() {
    return this.request('ProfileResponse', 'GET', '/v1/profile');
  }

  updateProfile(body: UpdateProfileBody) {
    return this.request('ProfileResponse', 'PATCH', '/v1/profile', body);
  }

  listUsers() {
    return this.request('UserListResponse', 'GET', '/admin/users');
  }

  createUser(body: CreateUserBody) {
    return this.request('CreatedUserResponse', 'POST', '/admin/users', body);
  }

  updateUser(id: string, body: UpdateUserBody) {
    return this.request('UserResponse', 'PATCH', `/admin/users/${encodeURIComponent(id)}`, body);
  }

  removeUser(id: string) {
    return this.request('MessageResponse', 'DELETE', `/admin/users/${encodeURIComponent(id)}`);
  }

  // ---- folder watch ----------------------------------------------------------------------------------

  addWatch(body: WatchBody) {
    return this.request('WatchCreatedResponse', 'POST', '/v1/watches', body);
  }

  listWatches() {
    return this.request('WatchListResponse', 'GET', '/v1/watches');
  }

  removeWatch(id: string) {
    return this.request('MessageResponse', 'DELETE', `/v1/watches/${encodeURIComponent(id)}`);
  }

  // ---- ingest ----------------------------------------------------------------------------------------

  /** Uploads a file (multipart/form-data) to POST /v1/save; fields as the JSON save takes them. */
  saveFile(
    file: { name: string; type: string; data: Uint8Array },
    fields: { title?: string | undefined; tags?: readonly string[] | undefined; spaceId?: string | undefined; description?: string | undefined; metadata?: Record<string, unknown> | undefined } = {},
  ) {
    const form = new FormData();
    if (fields.title !== undefined) form.set('title', fields.title);
    if (fields.description !== undefined) form.set('description', fields.description);
    if (fields.spaceId !== undefined) form.set('spaceId', fields.spaceId);
    if (fields.tags !== undefined) form.set('tags', JSON.stringify(fields.tags));
    if (fields.metadata !== undefined) form.set('metadata', JSON.stringify(fields.metadata));
    form.set('file', new Blob([file.data], { type: file.type }), file.name);
    return this.request('SaveSyncResponse', 'POST', '/v1/save', undefined, { form });
  }

  ingest(body: IngestBody & { async: false }): Promise<IngestSyncResponse>;
  ingest(body: IngestBody): Promise<IngestAsyncResponse>;
  ingest(body: IngestBody) {
    return body.async === false
      ? this.request('IngestSyncResponse', 'POST', '/v1/ingest', body)
      : this.request('IngestAsyncResponse', 'POST', '/v1/ingest', body);
  }

  ingestStatus(jobId: string) {
    return this.request('IngestStatusResponse', 'GET', `/v1/ingest/status/${encodeURIComponent(jobId)}`);
  }

  listJobs(limit = 20) {
    return this.getWith('JobListResponse', '/v1/jobs', { limit });
  }

  webhookSecret() {
    return this.request('WebhookSecretResponse', 'GET', '/v1/webhooks/secret');
  }

  // ---- export, import, backup ------------------------------------------------------------------------

  /**
   * GET /v1/export: yields the export's lines (without newlines) as they arrive. The timeout covers the
   * answer's start only: a large export streams for as long as it takes.
   */
  async *exportLines(params: ExportParams = {}): AsyncGenerator<string> {
    const query = new URLSearchParams();
    if (params.spaceId !== undefined) query.set('spaceId', params.spaceId);
    if (params.since !== undefined) query.set('since', params.since);
    if (params.withVectors) query.set('withVectors', 'true');
    const qs = query.toString();
    const headers: Record<string, string> = { accept: 'application/x-ndjson' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let response: StreamResponse;
    try {
      response = await this.open(`/v1/export${qs ? `?${qs}` : ''}`, { method: 'GET', headers, signal: controller.signal });
    } catch (error) {
      throw new MemError('DAEMON_UNREACHABLE', `No mem daemon is answering at ${this.baseUrl}.`, {
        hint: 'Start it with `mem daemon start` (background) or `mem serve` (foreground), or set MEM_HOST.',
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw errorFromBody(response.status, await jsonOrUndefined(response));
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line) yield line;
      }
    }
    buffer += decoder.decode();
    if (buffer) yield buffer;
  }

  /** POST /v1/import with parsed export records (a batch of a file); dryRun writes nothing. */
  importRecords(records: readonly unknown[], options: { dryRun?: boolean | undefined } = {}) {
    // Extraction runs inside the request for new memories: a batch may take a while.
    return this.request('ImportResponse', 'POST', `/v1/import${options.dryRun ? '?dryRun=true' : ''}`, { records }, { timeoutMs: Math.max(this.timeoutMs, 600_000) });
  }

  /** POST /v1/admin/backup: the daemon copies its data directory into `path` (absolute, on its machine). */
  backup(path: string) {
    // Writes wait while the daemon copies; a large data directory takes a while.
    return this.request('BackupResponse', 'POST', '/v1/admin/backup', { path }, { timeoutMs: Math.max(this.timeoutMs, 3_600_000) });
  }
}
