import type { EmbeddingModel } from '../../src/providers/spec.js';

/** A unit vector from a text's characters: the same text, the same vector, with no model to load. */
export function hashVector(text: string, dimension: number): Float32Array {
  const vector = new Float32Array(dimension);
  for (let i = 0; i < text.length; i++) vector[i % dimension] = (vector[i % dimension] as number) + text.charCodeAt(i);
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/** An embedding model for tests that count passages, commits or writes: `embed` (hashVector by default) gives the vectors. */
export function testEmbedder(dimension: number, embed: (texts: readonly string[]) => Promise<Float32Array[]> = async (texts) => texts.map((text) => hashVector(text, dimension))): EmbeddingModel {
  return {
    provider: 'test',
    modelId: 'test/hash',
    dimension,
    maxEmbeddingsPerCall: 64,
    init: async () => undefined,
    close: async () => undefined,
    doEmbed: embed,
  };
}
