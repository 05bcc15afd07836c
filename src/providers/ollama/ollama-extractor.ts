import { Ollama } from 'ollama';
import { z } from 'zod';
import { MemError } from '../../errors.js';
import {
  ENTITY_TYPES,
  FACT_CATEGORIES,
  type EntityType,
  type Extraction,
  type ExtractRequest,
  type Extractor,
  type FactCategory,
} from '../spec.js';

export interface OllamaExtractorOptions {
  /** Ollama's address; passed explicitly because ollama-js ignores OLLAMA_HOST. */
  readonly host: string;
  /** `ollama.extractModel`, e.g. `llama3.2`. */
  readonly model: string;
  /** Limit of one request (`ollama.timeoutMs`). */
  readonly timeoutMs: number;
  /** Requests per text when the output is not valid extraction JSON (default 2). */
  readonly attempts?: number;
  readonly fetch?: typeof fetch;
}

/** The JSON schema sent in `format`: Ollama constrains the model's output to it. */
export const EXTRACTION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          type: { type: 'string', enum: [...ENTITY_TYPES] },
          aliases: { type: 'array', items: { type: 'string' } },
        },
        required: ['name', 'type'],
      },
    },
    facts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          subject: { type: 'string' },
          predicate: { type: 'string' },
          object: { type: 'string' },
          category: { type: 'string', enum: [...FACT_CATEGORIES] },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          sentence: { type: 'string' },
          validFrom: { type: 'string' },
        },
        required: ['subject', 'predicate', 'object', 'category', 'confidence', 'sentence'],
      },
    },
    relationships: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string' },
          target: { type: 'string' },
          relationship: { type: 'string' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
        },
        required: ['source', 'target', 'relationship'],
      },
    },
  },
  required: ['entities', 'facts', 'relationships'],
} as const;

const SYSTEM_PROMPT =
  'You extract a knowledge graph from a personal note. Reply with JSON only, matching the schema. ' +
  `entities: every person, company, product, concept, location, event and date named in the note, with type one of ${ENTITY_TYPES.join(', ')}, ` +
  'and aliases: other names the note uses for the same entity. ' +
  'facts: statements the note makes, as subject (an entity name), predicate in UPPER_SNAKE_CASE (CEO_OF, WORKS_AT, ' +
  `LOCATED_IN, PART_OF, INVOLVED_IN, REVENUE, DATE ...), object, category one of ${FACT_CATEGORIES.join(', ')}, ` +
  'confidence 0-1 (how clearly the note states it), sentence (the sentence of the note that states it, copied exactly) ' +
  'and validFrom (YYYY-MM-DD, only when the note says when it became true). ' +
  'relationships: source and target entity names and relationship (WORKS_AT, CEO_OF, LOCATED_IN, PART_OF, INVOLVED_IN, ' +
  'RELATED_TO, MENTIONS ...). Do not invent anything the note does not say.';

// Lenient where models are sloppy (a number as a string, one alias as a string, an unknown type), strict
// where the value would be meaningless (no name, no subject).
const text = z.string().trim().min(1).max(300);
const confidence = z.coerce.number().min(0).max(1).catch(0.5);
const stringList = z
  .union([z.array(z.string()), z.string().transform((value) => [value])])
  .optional()
  .transform((value) => (value ?? []).map((item) => item.trim()).filter(Boolean).slice(0, 20));
const entityType = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .transform((value): EntityType =>
    (ENTITY_TYPES as readonly string[]).includes(value) ? (value as EntityType) : value === 'organization' || value === 'organisation' ? 'company' : value === 'place' ? 'location' : 'concept',
  );
const category = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .transform((value): FactCategory => ((FACT_CATEGORIES as readonly string[]).includes(value) ? (value as FactCategory) : 'attribute'));
const isoDay = z
  .string()
  .optional()
  .transform((value) => (value && /^\d{4}-\d{2}-\d{2}/.test(value) && Number.isFinite(Date.parse(value.slice(0, 10))) ? value.slice(0, 10) : undefined));
const predicate = text.transform((value) => value.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'RELATED_TO');

export const modelOutputSchema = z.object({
  entities: z.array(z.object({ name: text, type: entityType, aliases: stringList })).max(200),
  facts: z
    .array(
      z.object({
        subject: text,
        predicate,
        object: z.union([text, z.number().transform(String)]),
        category: category.catch('attribute'),
        confidence,
        sentence: z.string().max(2000).catch(''),
        validFrom: isoDay.catch(undefined),
      }),
    )
    .max(300)
    .default([]),
  relationships: z
    .array(z.object({ source: text, target: text, relationship: predicate, confidence: confidence.default(0.5) }))
    .max(300)
    .default([]),
});

/**
 * The model's JSON, repaired where that is safe: code fences and prose around the object are dropped,
 * trailing commas removed, and an object cut short gets its brackets closed. Null when nothing is left.
 */
export function parseModelJson(raw: string): unknown {
  const attempts: string[] = [raw];
  const unfenced = raw.replace(/```(?:json)?/gi, '');
  const start = unfenced.indexOf('{');
  if (start >= 0) {
    const end = unfenced.lastIndexOf('}');
    // Prose after the object: cut at its last brace; an object cut short: close it from its start.
    const whole = unfenced.slice(start).trim();
    const cut = end > start ? unfenced.slice(start, end + 1) : whole;
    const noTrailing = (body: string) => body.replace(/,\s*([}\]])/g, '$1');
    // Complete objects first; closing brackets is the last resort (it may keep only a prefix).
    attempts.push(cut, noTrailing(cut), whole, noTrailing(whole), closeBrackets(noTrailing(whole)), closeBrackets(noTrailing(cut)));
  }
  for (const candidate of attempts) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next repair
    }
  }
  return null;
}

/** Closes the strings, arrays and objects a truncated JSON text left open. */
function closeBrackets(text: string): string {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') stack.pop();
  }
  let result = inString ? `${text}"` : text;
  result = result.replace(/,\s*$/, '').replace(/:\s*$/, ': null');
  return result + stack.reverse().join('');
}

const chatResponseSchema = z.object({ message: z.object({ content: z.string() }) });

/** Entities, facts and relationships from a local Ollama model (/api/chat with a JSON schema in `format`). */
export class OllamaExtractor implements Extractor {
  readonly provider = 'ollama';
  readonly modelId: string;
  readonly inline = false;
  private readonly lifetime = new AbortController();

  constructor(private readonly options: OllamaExtractorOptions) {
    this.modelId = `ollama/${options.model.replace(/:latest$/, '')}`;
  }

  async close(): Promise<void> {
    this.lifetime.abort();
  }

  async extract(request: ExtractRequest): Promise<Extraction> {
    const attempts = Math.max(1, this.options.attempts ?? 2);
    const messages: { role: 'system' | 'user' | 'assistant'; content: string }[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: `Note (written ${new Date(request.referenceTime).toISOString().slice(0, 10)}):\n${request.text}` },
    ];
    let problem = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const content = await this.chat(messages, request.signal);
      const json = parseModelJson(content);
      const parsed = json === null ? null : modelOutputSchema.safeParse(json);
      if (parsed?.success) return toExtraction(parsed.data, request.text);
      problem =
        parsed === null
          ? 'the reply is not JSON'
          : `the reply does not match the schema (${parsed.error.issues
              .slice(0, 3)
              .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
              .join('; ')})`;
      // Ask again, telling the model what was wrong with its answer.
      messages.push(
        { role: 'assistant', content: content.slice(0, 4000) },
        { role: 'user', content: `That was not valid: ${problem}. Reply with the JSON object only, matching the schema.` },
      );
    }
    throw new MemError(
      'MODEL_UNAVAILABLE',
      `Ollama model "${this.options.model}" gave no valid extraction after ${attempts} attempts: ${problem}.`,
      { details: { host: this.options.host, model: this.options.model, reason: 'malformed', retryable: true } },
    );
  }

  private async chat(messages: { role: string; content: string }[], signal?: AbortSignal): Promise<string> {
    const { host, model, timeoutMs } = this.options;
    if (this.lifetime.signal.aborted) {
      throw new MemError('MODEL_UNAVAILABLE', 'The Ollama extractor is shut down.', { details: { reason: 'closed', retryable: true } });
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = AbortSignal.any([timeout, this.lifetime.signal, ...(signal ? [signal] : [])]);
    const baseFetch = this.options.fetch ?? fetch;
    const client = new Ollama({ host, fetch: (input, init) => baseFetch(input, { ...init, signal: combined }) });
    let raw: unknown;
    try {
      raw = await client.chat({
        model,
        messages,
        format: EXTRACTION_JSON_SCHEMA as unknown as Record<string, unknown>,
        stream: false,
        options: { temperature: 0 },
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw translate(error, { host, model, timeoutMs, timedOut: timeout.aborted });
    }
    const parsed = chatResponseSchema.safeParse(raw);
    if (!parsed.success) {
      throw new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} sent an unexpected /api/chat response. Is ${host} an Ollama server?`, {
        details: { host, reason: 'malformed', retryable: false },
      });
    }
    return parsed.data.message.content;
  }
}

function translate(error: unknown, context: { host: string; model: string; timeoutMs: number; timedOut: boolean }): MemError {
  const { host, model } = context;
  if (error instanceof MemError) return error;
  if (error instanceof Error && error.name === 'ResponseError' && 'status_code' in error && typeof error.status_code === 'number') {
    const status = error.status_code;
    if (status === 404 && /not found/i.test(error.message)) {
      return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} does not have the model "${model}": run \`ollama pull ${model}\`, then retry.`, {
        details: { host, model, reason: 'model-missing', retryable: true },
        hint: `ollama pull ${model} && mem extract --retry-failed`,
      });
    }
    return new MemError('MODEL_UNAVAILABLE', `Ollama at ${host} answered /api/chat with HTTP ${status}: ${error.message}`, {
      details: { host, model, status, reason: 'http', retryable: status >= 500 || status === 429 },
    });
  }
  if (context.timedOut) {
    return new MemError(
      'MODEL_UNAVAILABLE',
      `Ollama at ${host} did not answer /api/chat within ${context.timeoutMs} ms (ollama.timeoutMs); raise it for slow models.`,
      { details: { host, model, timeoutMs: context.timeoutMs, reason: 'timeout', retryable: true } },
    );
  }
  if (error instanceof TypeError) {
    return new MemError('MODEL_UNAVAILABLE', `Cannot reach Ollama at ${host}: start it with \`ollama serve\`, or set MEM_OLLAMA_HOST.`, {
      details: { host, reason: 'unreachable', retryable: true },
      hint: 'ollama serve',
      cause: error,
    });
  }
  return new MemError('MODEL_UNAVAILABLE', `Ollama call /api/chat at ${host} failed: ${String(error)}`, {
    details: { host, model, reason: 'http', retryable: false },
    cause: error,
  });
}

/**
 * Words that stand for a name, never one. Small models list "She" or "him" as a person and state facts about
 * it ("She CFO_OF Acme Corp"): such an entity would merge every note's "she" into one node, so it is dropped
 * (an alias that is a pronoun too), and with it the facts and relationships that rest on it.
 */
const PRONOUNS = new Set(['i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'he', 'him', 'his', 'she', 'her', 'hers', 'it', 'its', 'they', 'them', 'their', 'this', 'that']);
const isPronoun = (name: string) => PRONOUNS.has(name.trim().toLowerCase());

/** The validated model output as an Extraction; excerpts must be sentences of the text. */
function toExtraction(output: z.infer<typeof modelOutputSchema>, source: string): Extraction {
  const entities = new Map<string, { name: string; type: EntityType; aliases: Set<string>; mentions: number }>();
  for (const entity of output.entities) {
    if (isPronoun(entity.name)) continue;
    const key = `${entity.type}|${entity.name.toLowerCase()}`;
    const existing = entities.get(key) ?? { name: entity.name, type: entity.type, aliases: new Set<string>(), mentions: 0 };
    for (const alias of entity.aliases) if (alias.toLowerCase() !== entity.name.toLowerCase() && !isPronoun(alias)) existing.aliases.add(alias);
    existing.mentions += 1;
    entities.set(key, existing);
  }
  const known = new Set([...entities.values()].flatMap((entity) => [entity.name, ...entity.aliases].map((name) => name.toLowerCase())));
  const sentences = source.split(/(?<=[.!?])\s+|\n+/).map((sentence) => sentence.trim()).filter(Boolean);
  const excerptFor = (sentence: string, subject: string, object: string): string => {
    const wanted = sentence.trim();
    if (wanted && source.includes(wanted)) return wanted;
    // A paraphrased "sentence": the note's sentence naming both ends of the fact, else the subject.
    return (
      sentences.find((candidate) => candidate.includes(subject) && candidate.includes(object)) ??
      sentences.find((candidate) => candidate.includes(subject)) ??
      wanted
    );
  };
  return {
    entities: [...entities.values()].map((entity) => ({
      name: entity.name,
      type: entity.type,
      aliases: [...entity.aliases],
      properties: {},
      mentions: Math.max(1, entity.mentions),
    })),
    // A fact about something the model did not list as an entity is dropped: it could not be found again.
    facts: output.facts
      .filter((fact) => known.has(fact.subject.toLowerCase()) && !isPronoun(fact.object))
      .map((fact) => ({
        statement: `${fact.subject} ${fact.predicate} ${fact.object}`,
        subject: fact.subject,
        predicate: fact.predicate,
        object: fact.object,
        category: fact.category,
        confidence: fact.confidence,
        excerpt: excerptFor(fact.sentence, fact.subject, fact.object),
        ...(fact.validFrom ? { validFrom: fact.validFrom } : {}),
      })),
    relationships: output.relationships
      .filter((relationship) => known.has(relationship.source.toLowerCase()) && known.has(relationship.target.toLowerCase()))
      .map((relationship) => ({ ...relationship })),
  };
}
