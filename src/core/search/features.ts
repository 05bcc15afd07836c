import { nameMatcher, properNouns } from '../answers/text.js';
import type { MemoryRecord } from '../types.js';
import type { Candidate } from './candidates.js';
import type { TermStats } from './term-stats.js';
import { containsPhrase, queryTerms, termSequence, type QueryTerm } from './terms.js';

/**
 * The signals a search score is made of, each normalised per query so that it means the same for a one-word
 * query, a phrase and a question (see model.ts for how they combine, and bench/README.md for how the
 * weights were fitted).
 */
export interface Features {
  /** Cosine similarity of the best passage, minus the embedder's "unrelated" level (model.ts). */
  readonly similarity: number;
  /** Share of the query's term weight (IDF) that the memory contains: 0-1. */
  readonly coverage: number;
  /** 1 when the memory contains every term of the query (the query has at least one). */
  readonly allTerms: number;
  /** BM25 of the best passage over the query's IDF mass, the most a passage could score (0-2). */
  readonly keyword: number;
  /** 1 when the query's terms (two or more) stand together in the memory, in order. */
  readonly phrase: number;
  /** Share of the names the query capitalises that the memory does not mention (0 when it names none). */
  readonly missingNames: number;
  /** 1 when the query names an author of the candidates and another author wrote this memory. */
  readonly otherAuthor: number;
  /** Cosine similarity minus the best candidate's: how far below the query's nearest memory it is. */
  readonly similarityGap: number;
  /**
   * Cosine similarity minus the mean of the query's ten nearest texts among its candidates and the search
   * cohort (cohort.ts): how far the memory stands out from the pack. A paraphrase's memory stands out; the nearest memories of a made-up word are all about
   * as far (their similarity says little on its own, as the embedder places nonsense near anything).
   */
  readonly similarityLift: number;
  /** ln(1 + rank) of the memory in the vector search's order (0 for the nearest; the depth when not found). */
  readonly vectorRank: number;
  /** ln(1 + rank) of the memory in the keyword search's order (0 for the best; the depth when not found). */
  readonly keywordRank: number;
  /** Coverage of the message this memory answers (its context), when that message is a candidate too; else 0. */
  readonly promptCoverage: number;
  /** Its cosine similarity minus this memory's, when it is a candidate; else 0. */
  readonly promptSimilarityGap: number;
  /** The best coverage among the candidates that answer this memory (whose context it is); else 0. */
  readonly replyCoverage: number;
  /** The best of their cosine similarities minus this memory's; else 0. */
  readonly replySimilarityGap: number;
}

export const FEATURE_NAMES = [
  'similarity',
  'coverage',
  'allTerms',
  'keyword',
  'phrase',
  'missingNames',
  'otherAuthor',
  'similarityGap',
  'similarityLift',
  'vectorRank',
  'keywordRank',
  'promptCoverage',
  'promptSimilarityGap',
  'replyCoverage',
  'replySimilarityGap',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** How many of the nearest candidates make the pack that similarityLift is measured against. */
export const LIFT_PACK = 10;

/** The mean of the `LIFT_PACK` largest similarities (0 for none). */
export function packSimilarity(similarities: readonly number[]): number {
  const pack = [...similarities].sort((a, b) => b - a).slice(0, LIFT_PACK);
  return pack.length > 0 ? pack.reduce((sum, value) => sum + value, 0) / pack.length : 0;
}

/** What a query brings to every candidate's features. */
export interface QueryAnalysis {
  readonly terms: readonly QueryTerm[];
  /** IDF of each term, in the account's memories. */
  readonly weights: readonly number[];
  readonly totalWeight: number;
  /** The query's capitalised names (answers/text.ts properNouns). */
  readonly names: readonly string[];
}

export function analyseQuery(query: string, stats: TermStats): QueryAnalysis {
  const terms = queryTerms(query).slice(0, MAX_QUERY_TERMS);
  const weights = terms.map(({ term }) => stats.idf(term));
  return { terms, weights, totalWeight: weights.reduce((sum, weight) => sum + weight, 0), names: properNouns(query) };
}

/** Longer queries are cut here: the keyword index takes 64 words too. */
const MAX_QUERY_TERMS = 64;
const MAX_KEYWORD = 2;

/** What the text of a candidate says about the query's terms. */
export interface TextMatch {
  readonly coverage: number;
  readonly allTerms: number;
  readonly keyword: number;
  readonly phrase: number;
  /** The query's terms that the memory contains. */
  readonly matched: readonly QueryTerm[];
}

export function matchText(query: QueryAnalysis, candidate: Candidate): TextMatch {
  if (query.terms.length === 0) return { coverage: 0, allTerms: 0, keyword: 0, phrase: 0, matched: [] };
  const sequences = [...candidate.texts].map(termSequence);
  const present = new Set(sequences.flat());
  let covered = 0;
  const matched: QueryTerm[] = [];
  query.terms.forEach((queryTerm, i) => {
    if (!present.has(queryTerm.term)) return;
    covered += query.weights[i] ?? 0;
    matched.push(queryTerm);
  });
  const phraseTerms = query.terms.map(({ term }) => term);
  const phrase = phraseTerms.length >= 2 && sequences.some((sequence) => containsPhrase(sequence, phraseTerms)) ? 1 : 0;
  return {
    coverage: query.totalWeight > 0 ? covered / query.totalWeight : 0,
    allTerms: matched.length === query.terms.length ? 1 : 0,
    keyword: query.totalWeight > 0 ? Math.min(MAX_KEYWORD, candidate.bm25 / query.totalWeight) : 0,
    phrase,
    matched,
  };
}

/** Share of the query's names a memory mentions: its author counts, a name only in its context half. */
export interface NameWeighing {
  /** Mentions of the query's names in a memory (0-1). */
  mentioned(memory: MemoryRecord): number;
  /** Whether another author wrote it, when the query names authors of the candidates. */
  byOtherAuthor(memory: MemoryRecord): boolean;
  /** Whether the query names an author of the memories read. */
  readonly namesAuthors: boolean;
}

/** A name found only in a memory's context counts half, as the context's words weigh half in its keyword text. */
const CONTEXT_NAME_SHARE = 0.5;

export function weighNames(names: readonly string[], read: Iterable<MemoryRecord>): NameWeighing {
  const mentions = nameMatcher(names);
  // The authors the query names, among those of the memories read.
  const named = new Set<string>();
  for (const memory of read) if (memory.author && mentions(memory.author) > 0) named.add(memory.author);
  return {
    mentioned: (memory) =>
      Math.max(mentions(memory.author), mentions(`${memory.title}\n${memory.content}`), CONTEXT_NAME_SHARE * mentions(memory.context)),
    byOtherAuthor: (memory) => named.size > 0 && memory.author !== '' && !named.has(memory.author),
    namesAuthors: named.size > 0,
  };
}
