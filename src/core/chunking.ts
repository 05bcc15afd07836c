import type { ChunkInput } from './types.js';

/**
 * Splits memory content into overlapping passages for embedding. The built-in sentence encoder is best on
 * sentence-to-paragraph inputs, so passages hold whole sentences up to ~TARGET_WORDS words, and each passage
 * repeats the last sentence of the one before it so a fact that spans the boundary is still found.
 *
 * A title (when it is more than the opening words) heads every passage, not only the first: a passage from
 * the middle of a document rarely names its subject, and the title says what it is about, for the embedder
 * and for keyword search alike. Measured on SciFact-train (titled abstracts, ~2.5 passages each), nDCG@10
 * with the built-in embedder: semantic 0.258 -> 0.267, BM25 0.682 -> 0.695, hybrid 0.689 -> 0.705.
 */
export const TARGET_WORDS = 110;
const MAX_SENTENCE_WORDS = 80;
/** At most this many words of a title head each passage. */
const MAX_TITLE_WORDS = 32;

export interface Chunk {
  readonly seq: number;
  readonly text: string;
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const paragraph of text.split(/\n\s*\n|\r\n\s*\r\n/)) {
    const parts = paragraph.replace(/\s+/g, ' ').trim().match(/[^.!?]+(?:[.!?]+["')\]]*|$)\s*/g) ?? [];
    for (const raw of parts) {
      const sentence = raw.trim();
      if (!sentence) continue;
      // Very long "sentences" (lists, code, minified text) are cut into word windows.
      const tokens = sentence.split(' ');
      for (let i = 0; i < tokens.length; i += MAX_SENTENCE_WORDS) {
        sentences.push(tokens.slice(i, i + MAX_SENTENCE_WORDS).join(' '));
      }
    }
  }
  return sentences;
}

export function chunkText(content: string, title = ''): Chunk[] {
  // A title that merely repeats the opening words (the derived default) adds nothing to embed.
  const cleanTitle = title.trim().replace(/\.{3}$/, '');
  const header = cleanTitle.split(/\s+/).slice(0, MAX_TITLE_WORDS).join(' ');
  const prefix = cleanTitle && !content.trim().startsWith(cleanTitle) ? `${header}. ` : '';
  const sentences = splitSentences(content);
  if (sentences.length === 0) return [{ seq: 0, text: (prefix + content.trim()).trim() || title.trim() }];
  const chunks: Chunk[] = [];
  let current: string[] = [];
  let count = 0;
  const flush = () => {
    if (current.length === 0) return;
    const text = current.join(' ');
    chunks.push({ seq: chunks.length, text: prefix + text });
  };
  for (const sentence of sentences) {
    const n = words(sentence);
    if (count > 0 && count + n > TARGET_WORDS) {
      flush();
      const overlap = current[current.length - 1] ?? '';
      current = words(overlap) + n <= TARGET_WORDS ? [overlap] : [];
      count = current.length ? words(overlap) : 0;
    }
    current.push(sentence);
    count += n;
  }
  flush();
  return chunks;
}

/** At most this many words of a memory's context (its last words: the end of a message says most about a reply). */
export const MAX_CONTEXT_WORDS = 64;

export interface Passage extends Chunk {
  /** Texts whose embeddings, summed and normalised, make the passage's vector. */
  readonly embed: readonly string[];
}

/**
 * The passages a memory is indexed by. Without context: its chunks, each embedded as it is.
 *
 * With context (the message a reply answers, the section a note comes from), each chunk is indexed twice
 * over, following contextual retrieval: its vector is the normalised sum of the chunk's embedding and the
 * embedding of the context followed by the chunk, so the memory is found through what it answers without
 * losing what it says itself; its keyword-indexed text is the chunk, the context, then the chunk again, so
 * its own words weigh twice as much as the context's. On LoCoMo-dev (each turn with the turn before as
 * context), hybrid nDCG@10 through the API went from 0.486 to 0.525 (semantic 0.244 -> 0.279); keyword text
 * with the chunk's words only once did worse than no context on temporal questions (bench/README.md).
 */
export function memoryPassages(content: string, title = '', context = '', author = ''): Passage[] {
  // Who said it is part of what a passage says ("Priya: I went to the climbing gym"), for the embedder
  // and for keyword search alike, as a speaker's name heads a line of a transcript.
  const who = author.trim();
  const chunks = chunkText(content, title).map((chunk) => (who ? { seq: chunk.seq, text: `${who}: ${chunk.text}` } : chunk));
  const situation = context.split(/\s+/).filter(Boolean).slice(-MAX_CONTEXT_WORDS).join(' ');
  if (!situation) return chunks.map((chunk) => ({ ...chunk, embed: [chunk.text] }));
  return chunks.map((chunk) => ({
    seq: chunk.seq,
    text: `${chunk.text}\n${situation}\n${chunk.text}`,
    embed: [chunk.text, `${situation}\n${chunk.text}`],
  }));
}

/**
 * A passage's own words and the context it was indexed with (memoryPassages' format read back): search uses
 * them to see which candidate answers which (a reply's context is the message it answers).
 */
export function passageParts(text: string): { readonly own: string; readonly situation: string } {
  const lines = text.split('\n');
  if (lines.length === 3 && lines[0] === lines[2]) return { own: lines[0] ?? '', situation: lines[1] ?? '' };
  return { own: text, situation: '' };
}

/** The words of a text as a context is indexed (its last MAX_CONTEXT_WORDS words), to compare a message with a reply's context. */
export function contextKey(text: string): string {
  return text.split(/\s+/).filter(Boolean).slice(-MAX_CONTEXT_WORDS).join(' ');
}

/** A passage's vector from the embeddings of its `embed` texts: their sum, normalised. */
export function passageVector(vectors: readonly Float32Array[]): Float32Array {
  if (vectors.length === 1 && vectors[0]) return vectors[0];
  const dimension = vectors[0]?.length ?? 0;
  const sum = new Float32Array(dimension);
  for (const vector of vectors) for (let i = 0; i < dimension; i++) sum[i]! += vector[i] ?? 0;
  let norm = 0;
  for (const value of sum) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimension; i++) sum[i]! /= norm;
  return sum;
}

/** Embeds the passages of many memories in one call to `embed` (so the embedder sees full batches). */
export async function embedPassages(
  passageLists: readonly (readonly Passage[])[],
  embed: (texts: string[]) => Promise<readonly Float32Array[]>,
): Promise<ChunkInput[][]> {
  const vectors = await embed(passageLists.flatMap((passages) => passages.flatMap((passage) => [...passage.embed])));
  let at = 0;
  return passageLists.map((passages) =>
    passages.map((passage) => {
      const parts = passage.embed.map(() => vectors[at++] ?? new Float32Array());
      return { seq: passage.seq, text: passage.text, vector: passageVector(parts) };
    }),
  );
}
