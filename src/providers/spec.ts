/**
 * Model interfaces. Core code depends on these only; adapters (built-in, Ollama) implement them.
 * Call `embedMany` (providers/embed-many.ts), never `doEmbed` directly: the wrapper batches to
 * `maxEmbeddingsPerCall` and retries the errors an adapter marks retryable.
 */
export interface EmbeddingModel {
  /** Provider name: `builtin` or `ollama`. */
  readonly provider: string;
  /** Stable id of the vector space, e.g. `builtin/use-lite` or `ollama/nomic-embed-text`. */
  readonly modelId: string;
  /** Vector length; known after `init()` for models that only report it on first use. */
  readonly dimension: number;
  /** Most texts one `doEmbed` call accepts. */
  readonly maxEmbeddingsPerCall: number;
  /** Loads weights or checks the remote model; must be called before the first embed. */
  init(): Promise<void>;
  /** Embeds texts; vectors are L2-normalised so a dot product is the cosine similarity. */
  doEmbed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
  /** What the model is doing now, for GET /v1/status (models that queue work locally report it). */
  load?(): EmbedderLoad;
}

/**
 * Who waits on an embedding: `interactive` (a search, a save a client waits for) or `background` (bulk
 * ingest, reindexing). A model that queues texts serves interactive ones first; others may ignore it.
 */
export type EmbedPriority = 'interactive' | 'background';

export interface EmbedOptions {
  readonly signal?: AbortSignal | undefined;
  readonly priority?: EmbedPriority | undefined;
}

/** A local embedder's queue and work so far (counters only grow; rates come from differences). */
export interface EmbedderLoad {
  readonly workers: number;
  readonly queued: { readonly interactive: number; readonly background: number };
  readonly batches: number;
  readonly texts: number;
  /** Time texts waited in the queue before a worker took them, and time from then to their vector (ms, summed). */
  readonly queuedMs: number;
  readonly workingMs: number;
}

export interface ModelHealth {
  readonly provider: string;
  readonly model: string;
  readonly ready: boolean;
  readonly detail?: string;
}

/** Quality tier of an answer, as the API's `model` field names it: fast, default (balanced) or smart. */
export type AnswerTier = 'fast' | 'default' | 'smart';

/** One retrieved memory an answer may draw on. */
export interface AnswerSource {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  /** Retrieval relevance 0-1 (the calibrated search score). */
  readonly relevance: number;
  /**
   * When the memory happened (epoch ms): its metadata `date` when set (an imported note's own date), else
   * when it was saved. Relative phrases ("yesterday") are resolved against it.
   */
  readonly date: number;
  /**
   * The text the memory situates itself in (the message it replies to, the section it comes from): a
   * conversation's turn that answers a question is found through the question before it. Absent when none.
   */
  readonly context?: string;
}

/**
 * A fact of the knowledge graph that matches the question: its entity and relation are the ones asked about.
 * Core finds these (see core/answers/fact-answers.ts); every answerer gets them next to the passages.
 */
export interface AnswerFact {
  /** The fact in words, e.g. "Sarah Chen is the CFO of Acme Corp". */
  readonly statement: string;
  /** The words that answer the question: the side the question leaves out, or the date for "when". */
  readonly answer: string;
  /** The extractor's confidence in the fact, 0-1. */
  readonly confidence: number;
  /** The memory that states it (one of `sources`). */
  readonly sourceId: string;
  /** ISO day it became true, when the text says so. */
  readonly validFrom?: string;
  /** ISO day a later fact took over; set only for superseded facts (which answer questions about the past). */
  readonly validTo?: string;
  /** In the leading group (one relation, one named side): an extractive answerer names every primary fact. */
  readonly primary?: boolean;
}

export interface AnswerRequest {
  readonly question: string;
  /** Best first; the answer must be grounded in these only. */
  readonly sources: readonly AnswerSource[];
  /** Facts that answer the question, best first; empty when none matches. */
  readonly facts?: readonly AnswerFact[];
  readonly tier: AnswerTier;
  /** The question's embedding when the caller already has it (search computed it): saves one embed. */
  readonly questionVector?: Float32Array;
  readonly signal?: AbortSignal;
}

export interface AnswerUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** What `LanguageModel.answer` yields: text deltas, then exactly one `finish`. */
export type AnswerChunk =
  | { readonly type: 'delta'; readonly text: string }
  | {
      readonly type: 'finish';
      readonly usage: AnswerUsage;
      /** Which model answered, e.g. `builtin/extractive` or `ollama/llama3.2`. */
      readonly model: string;
      /** Ids of the sources the answer cites, in the order it uses them. */
      readonly cited: readonly string[];
      /**
       * How well the sources support the answer, 0-1, when the model can tell (the extractive answerer's
       * match of its sentences to the question); otherwise core measures the answer's grounding itself.
       */
      readonly support?: number;
      /** What the answer stands on: the request's facts, or the passages (the default). */
      readonly basis?: 'facts' | 'passages';
    };

/**
 * A model that answers a question from retrieved memories, streaming. Implementations: the built-in
 * extractive answerer (offline) and Ollama's /api/chat. Errors (unreachable, model missing, timeout) are
 * MemErrors with code MODEL_UNAVAILABLE, thrown from the first `next()` when the model cannot start.
 */
export interface LanguageModel {
  /** Provider name: `builtin` or `ollama`. */
  readonly provider: string;
  /** The model that answers a tier, e.g. `ollama/llama3.2:1b` for fast. */
  modelFor(tier: AnswerTier): string;
  answer(request: AnswerRequest): AsyncIterable<AnswerChunk>;
  close(): Promise<void>;
}

// ---- extraction (entities, facts, relationships) ------------------------------------------------------

export const ENTITY_TYPES = ['person', 'company', 'product', 'concept', 'location', 'event', 'date'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const FACT_CATEGORIES = ['role', 'date', 'metric', 'relationship', 'attribute', 'event'] as const;
export type FactCategory = (typeof FACT_CATEGORIES)[number];

/** An entity as one text names it; the store merges it with entities of other memories by name and aliases. */
export interface ExtractedEntity {
  readonly name: string;
  readonly type: EntityType;
  /** Other names the same text uses for it ("Sarah", "S. Chen", "ACME"). */
  readonly aliases: readonly string[];
  readonly properties: Readonly<Record<string, string | number | boolean>>;
  /** How many times the text mentions it (all names together), at least 1. */
  readonly mentions: number;
}

export interface ExtractedFact {
  /** The fact in words, e.g. "Sarah Chen is the CEO of Acme Corp". */
  readonly statement: string;
  /** An entity name (one of `entities`). */
  readonly subject: string;
  /** Upper snake case, e.g. CEO_OF, WORKS_AT, REVENUE. */
  readonly predicate: string;
  /** An entity name or a literal value ("$3M", "2026-03-03"). */
  readonly object: string;
  readonly category: FactCategory;
  /**
   * 0-1: how likely the fact is stated by the text as extracted. Rule-based extractors give each pattern
   * the precision it measured on the labelled evaluation set (bench/extraction.ts), so a threshold keeps
   * about that share of correct facts.
   */
  readonly confidence: number;
  /** The sentence that states it. */
  readonly excerpt: string;
  /** When the fact became true (ISO 8601 date), only when the text says so. */
  readonly validFrom?: string | undefined;
}

export interface ExtractedRelationship {
  readonly source: string;
  readonly target: string;
  /** WORKS_AT, CEO_OF, LOCATED_IN, PART_OF, INVOLVED_IN, RELATED_TO, MENTIONS, ... (open set). */
  readonly relationship: string;
  readonly confidence: number;
}

export interface Extraction {
  readonly entities: readonly ExtractedEntity[];
  readonly facts: readonly ExtractedFact[];
  readonly relationships: readonly ExtractedRelationship[];
}

export interface ExtractRequest {
  readonly text: string;
  /** The time the text was written (epoch ms): relative dates ("last week") resolve against it. */
  readonly referenceTime: number;
  readonly signal?: AbortSignal | undefined;
  /** Interactive extractions (a save a client waits for) go before background ones (bulk ingest). */
  readonly priority?: EmbedPriority | undefined;
}

/**
 * Turns a memory's text into entities, facts and relationships. Implementations: the built-in rule-based
 * extractor (offline, a few ms per note, so it runs inside the save) and Ollama's /api/chat with a JSON
 * schema (seconds per note, so it runs in the background queue). Model failures are MemErrors with code
 * MODEL_UNAVAILABLE; `details.retryable` says whether trying again may help.
 */
export interface Extractor {
  /** Provider name: `builtin` or `ollama`. */
  readonly provider: string;
  /** e.g. `builtin/rules-v1` or `ollama/llama3.2`. */
  readonly modelId: string;
  /** True when extraction is fast and local enough to run inside the save request. */
  readonly inline: boolean;
  extract(request: ExtractRequest): Promise<Extraction>;
  close(): Promise<void>;
}
