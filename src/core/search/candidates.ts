import { contextKey, passageParts } from '../chunking.js';
import type { KeywordHit, VectorHit } from '../types.js';

/** A memory found by the query's vector, its words, or both, with what each retrieval said of it. */
export interface Candidate {
  readonly memoryId: string;
  /** The passage that matched best (by similarity when the vector found it, else by BM25). */
  seq: number;
  /** Cosine similarity of its best passage; null when only the keyword search found it. */
  similarity: number | null;
  /** BM25 of its best passage (LanceDB's full-text index); 0 when only the vector found it. */
  bm25: number;
  /** The indexed text of every passage of it that either retrieval returned. */
  readonly texts: Set<string>;
  /** Its place among the memories the vector search found (0 = nearest), or null. */
  vectorRank: number | null;
  /** Its place among the memories the keyword search found (0 = best), or null. */
  keywordRank: number | null;
}

/**
 * Which candidates answer which: a memory saved with context (a reply, with the message it answers) is
 * indexed with that message's text, so a candidate whose context is another candidate's own text answers it.
 * Returns, per memory id, the candidate it answers (`prompt`) and those that answer it (`replies`).
 */
export function linkReplies(candidates: readonly Candidate[]): Map<string, { prompt: Candidate | null; replies: Candidate[] }> {
  const byOwnText = new Map<string, Candidate>();
  const parts = new Map<string, { own: string; situation: string }>();
  for (const candidate of candidates) {
    const first = candidate.texts.values().next().value;
    const { own, situation } = passageParts(first ?? '');
    parts.set(candidate.memoryId, { own: contextKey(own), situation });
    byOwnText.set(contextKey(own), candidate);
  }
  const links = new Map(candidates.map((candidate) => [candidate.memoryId, { prompt: null as Candidate | null, replies: [] as Candidate[] }]));
  for (const candidate of candidates) {
    const situation = parts.get(candidate.memoryId)?.situation;
    if (!situation) continue;
    const prompt = byOwnText.get(situation);
    if (!prompt || prompt === candidate) continue;
    const link = links.get(candidate.memoryId);
    if (link) link.prompt = prompt;
    links.get(prompt.memoryId)?.replies.push(candidate);
  }
  return links;
}

/** A candidate seen first in `hit`, before either retrieval's own signals are filled in. */
function fresh(hit: { readonly memoryId: string; readonly seq: number; readonly text: string }): Candidate {
  return { memoryId: hit.memoryId, seq: hit.seq, similarity: null, bm25: 0, texts: new Set([hit.text]), vectorRank: null, keywordRank: null };
}

/** One candidate per memory, in first-seen order (vector hits first). */
export function mergeHits(vectorHits: readonly VectorHit[], keywordHits: readonly KeywordHit[]): Candidate[] {
  const byMemory = new Map<string, Candidate>();
  // Hits come best first from each index: a memory's rank is that of its first (best) passage.
  let vectorRank = 0;
  for (const hit of vectorHits) {
    const entry = byMemory.get(hit.memoryId);
    if (!entry) {
      byMemory.set(hit.memoryId, { ...fresh(hit), similarity: hit.similarity, vectorRank: vectorRank++ });
      continue;
    }
    entry.texts.add(hit.text);
    if ((entry.similarity ?? -1) < hit.similarity) {
      entry.similarity = hit.similarity;
      entry.seq = hit.seq;
    }
  }
  let keywordRank = 0;
  for (const hit of keywordHits) {
    const entry = byMemory.get(hit.memoryId);
    if (!entry) {
      byMemory.set(hit.memoryId, { ...fresh(hit), bm25: hit.score, keywordRank: keywordRank++ });
      continue;
    }
    entry.texts.add(hit.text);
    if (entry.keywordRank === null) entry.keywordRank = keywordRank++;
    if (hit.score > entry.bm25) entry.bm25 = hit.score;
  }
  return [...byMemory.values()];
}
