import { Ollama } from 'ollama';
import { z } from 'zod';
import { MemError } from '../../errors.js';
import type { AnswerChunk, AnswerRequest, AnswerTier, LanguageModel } from '../spec.js';

export interface OllamaLanguageModelOptions {
  /** Ollama's address; passed explicitly because ollama-js ignores OLLAMA_HOST. */
  readonly host: string;
  /** The Ollama model per tier (`ollama.chatModel.fast|default|smart`). */
  readonly models: Readonly<Record<AnswerTier, string>>;
  /** Longest wait for the first token and between two streamed chunks (`ollama.timeoutMs`). */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

// Deliberately minimal: the fields we read from each NDJSON chunk of /api/chat.
const chatChunkSchema = z.object({
  message: z.object({ content: z.string().optional() }).optional(),
  done: z.boolean().optional(),
  prompt_eval_count: z.number().optional(),
  eval_count: z.number().optional(),
});

const SYSTEM_PROMPT =
  'You answer questions using only the known facts and the numbered memories the user gives you. Cite each memory you use (a fact names its memory) with ' +
  'its number in square brackets, like [2]. If the memories do not contain the answer, say that you do not ' +
  'have enough information. Keep names and dates exactly as written. Be brief: one to three sentences.';

/** Most characters of a memory's context in the prompt: the question a reply answers, not a whole thread. */
const CONTEXT_CHARS = 200;

/** At most `limit` characters, cut between code points (an emoji stays whole) with an ellipsis. */
function clip(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join('').trimEnd()}…`;
}

/** The prompt: numbered memories with their dates (and what each replies to), then the question. */
export function answerPrompt(request: AnswerRequest): string {
  const memories = request.sources
    .map((source, index) => {
      const date = new Date(source.date).toISOString().slice(0, 10);
      const title = source.title && !source.content.startsWith(source.title) ? `${source.title}: ` : '';
      // A reply means little without what it replies to ("Seven years now!"): its context goes beside it.
      const context = source.context ? ` (in reply to: ${clip(source.context.replace(/\s+/g, ' ').trim(), CONTEXT_CHARS)})` : '';
      return `[${index + 1}] (${date}) ${title}${source.content.replace(/\s+/g, ' ').trim()}${context}`;
    })
    .join('\n');
  // The knowledge graph's matching facts, each with the number of the memory that states it, so a small model
  // can answer from a fact and cite its memory as it cites a passage.
  // Dates are days (YYYY-MM-DD), compared as text with today's.
  const today = new Date().toISOString().slice(0, 10);
  const facts = (request.facts ?? []).map((fact) => {
    const index = request.sources.findIndex((source) => source.id === fact.sourceId);
    const validity = [
      fact.validFrom ? (fact.validFrom > today ? `from ${fact.validFrom}, not yet true` : `since ${fact.validFrom}`) : '',
      fact.validTo ? (fact.validTo > today ? `until ${fact.validTo}` : `until ${fact.validTo}, no longer true`) : '',
    ]
      .filter(Boolean)
      .join(', ');
    return `- ${fact.statement} (confidence ${fact.confidence.toFixed(2)}${validity ? `, ${validity}` : ''}${index >= 0 ? `, from [${index + 1}]` : ''})`;
  });
  const known = facts.length > 0 ? `Known facts:\n${facts.join('\n')}\n\n` : '';
  return `${known}Memories:\n${memories}\n\nQuestion: ${request.question}`;
}

/** Answers through a local Ollama server's /api/chat, streaming its tokens as they come. */
export class OllamaLanguageModel implements LanguageModel {
  readonly provider = 'ollama';
  // Aborted by close() so that no generation outlives the daemon.
  private readonly lifetime = new AbortController();

  constructor(private readonly options: OllamaLanguageModelOptions) {}

  modelFor(tier: AnswerTier): string {
    return `ollama/${this.options.models[tier]}`;
  }

  async close(): Promise<void> {
    this.lifetime.abort();
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerChunk> {
    const { host, timeoutMs } = this.options;
    const model = this.options.models[request.tier];
    if (this.lifetime.signal.aborted) throw closedError();
    // An idle deadline, re-armed at every chunk: a long answer may stream for a while, a stalled one may not.
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), timeoutMs);
    };
    const signal = AbortSignal.any([idle.signal, this.lifetime.signal, ...(request.signal ? [request.signal] : [])]);
    const baseFetch = this.options.fetch ?? fetch;
    const client = new Ollama({ host, fetch: (input, init) => baseFetch(input, { ...init, signal }) });
    const translate = (error: unknown): unknown => {
      if (request.signal?.aborted) return request.signal.reason;
      if (this.lifetime.signal.aborted) return closedError();
      if (idle.signal.aborted) {
        return new MemError(
          'MODEL_UNAVAILABLE',
          `Ollama at ${host} stopped answering with ${model} for ${timeoutMs} ms (ollama.timeoutMs). A model loading for ` +
            'the first time can be slow: raise ollama.timeoutMs (MEM_OLLAMA_TIMEOUT_MS), or pick a smaller model.',
          { details: { host, model, timeoutMs, reason: 'timeout', retryable: true }, cause: error },
        );
      }
      return translateOllamaError(error, host, model);
    };

    arm();
    let text = '';
    let promptTokens = 0;
    let completionTokens = 0;
    try {
      const stream = await client
        .chat({
          model,
          stream: true,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: answerPrompt(request) },
          ],
          options: { temperature: 0 },
        })
        .catch((error: unknown) => {
          throw translate(error);
        });
      try {
        for await (const raw of stream) {
          arm();
          const chunk = chatChunkSchema.safeParse(raw);
          if (!chunk.success) throw malformed(host, 'a chat chunk without message.content');
          const delta = chunk.data.message?.content ?? '';
          if (delta) {
            text += delta;
            yield { type: 'delta', text: delta };
          }
          if (chunk.data.done) {
            promptTokens = chunk.data.prompt_eval_count ?? 0;
            completionTokens = chunk.data.eval_count ?? 0;
          }
        }
      } catch (error) {
        stream.abort();
        throw error instanceof MemError ? error : translate(error);
      }
    } finally {
      clearTimeout(timer);
    }
    const cited = [...text.matchAll(/\[(\d+)\]/g)]
      .map((match) => request.sources[Number(match[1]) - 1]?.id)
      .filter((id): id is string => id !== undefined);
    yield {
      type: 'finish',
      usage: { promptTokens, completionTokens },
      model: this.modelFor(request.tier),
      cited: [...new Set(cited)],
    };
  }
}

/** Ollama's failures, told the way a person can act on: pull the model, start Ollama, or check the host. */
export function translateOllamaError(error: unknown, host: string, model: string): MemError {
  if (error instanceof MemError) return error;
  if (error instanceof Error && error.name === 'ResponseError' && 'status_code' in error && typeof error.status_code === 'number') {
    const status = error.status_code;
    if (status === 404 && /not found/i.test(error.message)) {
      return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} does not have the model "${model}": run \`ollama pull ${model}\`, then try again.`, {
        details: { host, model, reason: 'model-missing', retryable: false },
        hint: `ollama pull ${model}`,
      });
    }
    return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} answered /api/chat with HTTP ${status}: ${error.message}`, {
      details: { host, model, status, reason: 'http', retryable: status >= 500 || status === 429 },
    });
  }
  // undici reports every network failure (refused, DNS, reset) as a TypeError with the cause attached.
  if (error instanceof TypeError) {
    return new MemError(
      'MODEL_UNAVAILABLE',
      `Cannot reach Ollama at ${host}: start it with \`ollama serve\`, or set MEM_OLLAMA_HOST to the address where it runs ` +
        '(or set answer.provider to builtin).',
      { details: { host, reason: 'unreachable', retryable: true }, hint: 'ollama serve', cause: error },
    );
  }
  if (error instanceof Error && /stream|json|unexpected/i.test(error.message) && !(error instanceof RangeError)) {
    return malformed(host, error.message);
  }
  return new MemError('MODEL_UNAVAILABLE', `Ollama call /api/chat at ${host} failed: ${String(error)}`, {
    details: { host, model, reason: 'http', retryable: false },
    cause: error,
  });
}

function malformed(host: string, problem: string): MemError {
  return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} sent an unexpected /api/chat response: ${problem}. Is ${host} an Ollama server?`, {
    details: { host, reason: 'malformed', retryable: false },
  });
}

function closedError(): MemError {
  return new MemError('MODEL_UNAVAILABLE', 'The Ollama answerer is shut down.', { details: { reason: 'closed', retryable: false } });
}
