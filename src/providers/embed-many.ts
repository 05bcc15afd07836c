import { MemError } from '../errors.js';
import type { EmbeddingModel, EmbedPriority } from './spec.js';

export interface EmbedManyOptions {
  readonly signal?: AbortSignal | undefined;
  /** Passed to the model: interactive texts are served before background ones. */
  readonly priority?: EmbedPriority | undefined;
  /** Attempts for errors marked retryable (MODEL_UNAVAILABLE with details.retryable). */
  readonly maxAttempts?: number;
}

/** Embeds any number of texts through `doEmbed`, in slices of `maxEmbeddingsPerCall`. */
export async function embedMany(
  model: EmbeddingModel,
  texts: readonly string[],
  options: EmbedManyOptions = {},
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  const step = Math.max(1, model.maxEmbeddingsPerCall);
  for (let start = 0; start < texts.length; start += step) {
    const slice = texts.slice(start, start + step);
    out.push(...(await withRetry(() => model.doEmbed(slice, { signal: options.signal, priority: options.priority }), options.maxAttempts ?? 2)));
  }
  return out;
}

async function withRetry<T>(run: () => Promise<T>, attempts: number): Promise<T> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await run();
    } catch (error) {
      lastError = error;
      const retryable = error instanceof MemError && error.details?.retryable === true;
      if (!retryable || attempt === attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 1)));
    }
  }
  throw lastError;
}

export function l2normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}
