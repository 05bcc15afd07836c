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
  doEmbed(texts: readonly string[], options?: { readonly signal?: AbortSignal }): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface ModelHealth {
  readonly provider: string;
  readonly model: string;
  readonly ready: boolean;
  readonly detail?: string;
}
