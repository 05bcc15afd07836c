import { Ollama } from 'ollama';
import { z } from 'zod';
import { MemError } from '../../errors.js';
import { l2normalize } from '../embed-many.js';
import type { EmbeddingModel, EmbedOptions } from '../spec.js';

export interface OllamaEmbeddingModelOptions {
  /** Ollama's address, e.g. `http://127.0.0.1:11434`; passed explicitly because ollama-js ignores OLLAMA_HOST. */
  readonly host: string;
  /** The Ollama model name, e.g. `nomic-embed-text`. */
  readonly model: string;
  /** Limit of one request, from `ollama.timeoutMs`. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

export interface OllamaStatus {
  readonly reachable: boolean;
  /** Installed model names as Ollama lists them (`nomic-embed-text:latest`). */
  readonly models: string[];
  readonly error?: string;
}

/** Why an Ollama call failed, in `MemError.details.reason`; a status command tells them apart. */
export type OllamaFailure = 'unreachable' | 'timeout' | 'model-missing' | 'http' | 'malformed' | 'closed';

// Deliberately minimal: only the fields we read, so additions to Ollama's responses never break us.
const embedResponseSchema = z.object({ embeddings: z.array(z.array(z.number())) });
const tagsResponseSchema = z.object({ models: z.array(z.object({ name: z.string() })) });

const PROBE_TEXT = 'dimension probe';

/** Embeddings from a local Ollama server (`/api/embed`). */
export class OllamaEmbeddingModel implements EmbeddingModel {
  readonly provider = 'ollama';
  readonly modelId: string;
  readonly maxEmbeddingsPerCall = 64;
  private learntDimension = 0;
  private initializing: Promise<void> | undefined;
  // Aborted by close() so that no request outlives the model.
  private readonly lifetime = new AbortController();

  constructor(private readonly options: OllamaEmbeddingModelOptions) {
    // Ollama treats a bare name as `:latest`; one id per vector space keeps stored vectors matching.
    this.modelId = `ollama/${options.model.replace(/:latest$/, '')}`;
  }

  /** 0 until `init()`: Ollama only tells a model's dimension by embedding something. */
  get dimension(): number {
    return this.learntDimension;
  }

  init(): Promise<void> {
    this.initializing ??= this.embed([PROBE_TEXT]).then(
      (vectors) => {
        this.learntDimension = vectors[0]?.length ?? 0;
      },
      (error: unknown) => {
        // A failed probe (Ollama not started yet) must not poison later attempts.
        this.initializing = undefined;
        throw error;
      },
    );
    return this.initializing;
  }

  async doEmbed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const vectors = await this.embed(texts, options.signal);
    const length = vectors[0]?.length ?? 0;
    if (this.learntDimension === 0) {
      this.learntDimension = length;
    } else if (length !== this.learntDimension) {
      // Mixing vector spaces would silently ruin search; the model behind the name must have changed.
      throw new MemError(
        'MODEL_UNAVAILABLE',
        `Ollama model "${this.options.model}" returned ${length}-dimensional vectors, but it gave ` +
          `${this.learntDimension} when mem started: was the model replaced? Restart the daemon to re-learn it.`,
        { details: { host: this.options.host, reason: 'malformed', retryable: false } },
      );
    }
    return vectors;
  }

  async close(): Promise<void> {
    this.lifetime.abort();
  }

  private async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.lifetime.signal.aborted) throw closedError();
    const { host, model } = this.options;
    const raw = await callOllama(
      this.options,
      '/api/embed',
      // truncate: a chunk longer than the model's context is cut rather than failing its whole batch.
      (client) => client.embed({ model, input: [...texts], truncate: true }),
      { signal, lifetime: this.lifetime.signal, model },
    );
    const parsed = embedResponseSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body';
      throw malformedError(host, '/api/embed', `expected { embeddings: number[][] } (${where})`);
    }
    const { embeddings } = parsed.data;
    if (embeddings.length !== texts.length) {
      throw malformedError(host, '/api/embed', `${embeddings.length} vectors came back for ${texts.length} texts`);
    }
    const length = embeddings[0]?.length ?? 0;
    if (length === 0 || embeddings.some((vector) => vector.length !== length)) {
      throw malformedError(host, '/api/embed', 'the vectors are empty or differ in length');
    }
    return embeddings.map((vector) => l2normalize(Float32Array.from(vector)));
  }
}

/** Whether Ollama answers at `host`, and which models it has, from `/api/tags`. Never throws. */
export async function checkOllama(
  host: string,
  timeoutMs: number,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): Promise<OllamaStatus> {
  try {
    const raw = await callOllama({ host, timeoutMs, fetch }, '/api/tags', (client) => client.list(), {});
    const parsed = tagsResponseSchema.safeParse(raw);
    if (!parsed.success) {
      return { reachable: true, models: [], error: malformedError(host, '/api/tags', 'expected { models: [{ name }] }').message };
    }
    return { reachable: true, models: parsed.data.models.map((entry) => entry.name) };
  } catch (error) {
    const reason = error instanceof MemError ? error.details?.reason : undefined;
    const reachable = reason !== 'unreachable' && reason !== 'timeout';
    return { reachable, models: [], error: error instanceof Error ? error.message : String(error) };
  }
}

interface CallContext {
  /** The caller's cancellation: rethrown as is, it is not Ollama's fault. */
  readonly signal?: AbortSignal | undefined;
  readonly lifetime?: AbortSignal;
  /** Set for model calls, so a 404 can be told as a model not pulled. */
  readonly model?: string;
}

async function callOllama(
  target: { readonly host: string; readonly timeoutMs: number; readonly fetch?: typeof fetch | undefined },
  route: string,
  run: (client: Ollama) => Promise<unknown>,
  context: CallContext,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(target.timeoutMs);
  const signals = [timeout, context.signal, context.lifetime].filter((s): s is AbortSignal => s !== undefined);
  const signal = AbortSignal.any(signals);
  const baseFetch = target.fetch ?? fetch;
  try {
    // ollama-js sends no signal with non-streaming calls, so the deadline rides on the fetch it is given.
    const client = new Ollama({ host: target.host, fetch: (input, init) => baseFetch(input, { ...init, signal }) });
    return await run(client);
  } catch (error) {
    const http = responseError(error);
    if (http) throw httpError(target.host, route, http, context.model);
    if (context.signal?.aborted) throw context.signal.reason;
    if (context.lifetime?.aborted) throw closedError();
    if (timeout.aborted) {
      throw new MemError(
        'MODEL_UNAVAILABLE',
        `Ollama at ${target.host} did not answer ${route} within ${target.timeoutMs} ms (ollama.timeoutMs). ` +
          'A model loading for the first time can be slow: raise ollama.timeoutMs (MEM_OLLAMA_TIMEOUT_MS) if it persists.',
        { details: { host: target.host, timeoutMs: target.timeoutMs, reason: 'timeout', retryable: true }, cause: error },
      );
    }
    if (error instanceof SyntaxError) throw malformedError(target.host, route, 'the body is not JSON', error);
    // undici reports every network failure (refused, DNS, reset) as a TypeError with the cause attached.
    if (error instanceof TypeError) {
      throw new MemError(
        'MODEL_UNAVAILABLE',
        `Cannot reach Ollama at ${target.host} (${networkDetail(error)}): start it with \`ollama serve\`, ` +
          'or set MEM_OLLAMA_HOST to the address where it runs.',
        { details: { host: target.host, reason: 'unreachable', retryable: true }, hint: 'ollama serve', cause: error },
      );
    }
    throw new MemError('MODEL_UNAVAILABLE', `Ollama call ${route} at ${target.host} failed: ${String(error)}`, {
      details: { host: target.host, reason: 'http', retryable: false },
      cause: error,
    });
  }
}

function httpError(host: string, route: string, http: { status: number; message: string }, model?: string): MemError {
  if (model !== undefined && http.status === 404 && /not found/i.test(http.message)) {
    return new MemError(
      'MODEL_UNAVAILABLE',
      `Ollama at ${host} does not have the model "${model}": run \`ollama pull ${model}\`, then try again.`,
      { details: { host, model, reason: 'model-missing', retryable: false }, hint: `ollama pull ${model}` },
    );
  }
  // Ollama answers 5xx while a model runner crashes or restarts; a later attempt often succeeds.
  const retryable = http.status >= 500 || http.status === 429;
  return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} answered ${route} with HTTP ${http.status}: ${http.message}`, {
    details: { host, status: http.status, reason: 'http', retryable },
  });
}

function malformedError(host: string, route: string, problem: string, cause?: unknown): MemError {
  return new MemError(
    'MODEL_UNAVAILABLE',
    `Ollama at ${host} sent an unexpected ${route} response: ${problem}. Is ${host} an Ollama server?`,
    { details: { host, reason: 'malformed', retryable: false }, ...(cause === undefined ? {} : { cause }) },
  );
}

function closedError(): MemError {
  return new MemError('MODEL_UNAVAILABLE', 'The Ollama embedder is shut down.', {
    details: { reason: 'closed', retryable: false },
  });
}

/** ollama-js throws its (unexported) ResponseError for any non-2xx answer, with Ollama's `error` text. */
function responseError(error: unknown): { status: number; message: string } | undefined {
  if (error instanceof Error && error.name === 'ResponseError' && 'status_code' in error) {
    const status = error.status_code;
    if (typeof status === 'number') return { status, message: error.message };
  }
  return undefined;
}

function networkDetail(error: TypeError): string {
  const cause: unknown = error.cause;
  if (typeof cause === 'object' && cause !== null) {
    if ('code' in cause && typeof cause.code === 'string') return cause.code;
    if ('message' in cause && typeof cause.message === 'string') return cause.message;
  }
  return error.message;
}
