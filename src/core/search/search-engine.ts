import type { MemoryStore } from '../ports.js';
import { calibrate, round4, scoringFor } from '../scoring.js';
import type { MemoryFilter, MemoryRecord } from '../types.js';
import { linkReplies, mergeHits, type Candidate } from './candidates.js';
import { analyseQuery, matchText, packSimilarity, weighNames, type Features, type TextMatch } from './features.js';
import { calibratedScore, DEFAULT_SEARCH_MODEL, logit, similarityLevel, type SearchModel } from './model.js';
import { TermStatsCache } from './term-stats.js';
import { highlightRanges, type QueryTerm } from './terms.js';

export interface SearchInput {
  readonly query: string;
  readonly limit: number;
  readonly offset: number;
  readonly threshold: number;
  /** Words and meaning (the default); false: meaning only (cosine similarity). */
  readonly hybrid: boolean;
  readonly filter: MemoryFilter;
}

/** Why a memory scored what it did (`explain: true`). */
export interface Explanation {
  /** The query's words (as typed) that the memory contains, after stemming. */
  readonly matchedTerms: readonly string[];
  /** Where they stand in the memory's content: [start, end) character offsets. */
  readonly highlights: readonly (readonly [number, number])[];
  /** Cosine similarity of the best passage. */
  readonly similarity: number;
  /** BM25 of the best passage (0 when the keyword index did not return it). */
  readonly keywordScore: number;
  /** The model's inputs (features.ts), its ranking value and the memory's place in that ranking. */
  readonly features: Features;
  readonly logit: number;
  readonly rank: number;
}

export interface SearchHit {
  readonly memory: MemoryRecord;
  readonly score: number;
  /** The passage that matched best. */
  readonly seq: number;
  readonly explanation?: Explanation;
}

export interface SearchResult {
  readonly hits: SearchHit[];
  /** Memories at or above the threshold among the ranked candidates. */
  readonly total: number;
}

/** A candidate with its features and score. */
export interface Scored {
  readonly memoryId: string;
  readonly seq: number;
  readonly similarity: number;
  readonly bm25: number;
  readonly features: Features;
  /** The ranking model's value (model.ts, stage 1). */
  readonly logit: number;
  /** Place in the ranking (0 = first). */
  readonly rank: number;
  readonly score: number;
  readonly matched: readonly QueryTerm[];
}

export interface SearchEngineDeps {
  readonly modelId: string;
  readonly embedQuery: (query: string) => Promise<Float32Array>;
  /** The query's nearest similarities in the cohort (cohort.ts); without it the pack is the account's alone. */
  readonly cohort?: (vector: Float32Array) => Promise<readonly number[]>;
  readonly model?: SearchModel;
  readonly now?: () => number;
}

/** Candidate passages fetched per requested result, from each retrieval: memories with several passages collapse. */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 1000;
/** Names are weighed for the best candidates only (each is read from the store): enough for any page. */
const NAME_WINDOW_MIN = 50;
/** The place given to a memory that one retrieval did not return (bench/fit-search.ts searches 400 deep). */
const UNRANKED = 400;
const NAME_WINDOW_MAX = 400;

/**
 * Search: candidates from the query's vector and from its words (LanceDB's vector and full-text indexes),
 * then one score per memory from the features of features.ts through the fitted model of model.ts, so that
 * a score means the same for every query shape. Semantic-only search (hybrid false) scores the cosine
 * similarity through the embedder's calibration curve (scoring.ts), as it always did.
 */
export class SearchEngine {
  readonly termStats: TermStatsCache;
  private readonly model: SearchModel;

  constructor(private readonly deps: SearchEngineDeps) {
    this.termStats = new TermStatsCache(deps.now);
    this.model = deps.model ?? DEFAULT_SEARCH_MODEL;
  }

  /** Every candidate of a query, scored and ranked (best first); reads memories only to weigh names. */
  async rank(store: MemoryStore, input: SearchInput): Promise<{ ranked: Scored[]; read: Map<string, MemoryRecord> }> {
    const depth = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, (input.offset + input.limit) * CANDIDATES_PER_RESULT));
    const [vector, stats] = await Promise.all([this.deps.embedQuery(input.query), input.hybrid ? this.termStats.get(store) : null]);
    const [vectorHits, keywordHits] = await Promise.all([
      store.vectorSearch(vector, input.filter, depth),
      stats ? store.keywordSearch(input.query, input.filter, depth, stats) : Promise.resolve([]),
    ]);
    const candidates = mergeHits(vectorHits, keywordHits);
    // Not among the top `depth` passages by vector: its similarity is at most the weakest candidate's.
    const floor = vectorHits.length > 0 ? Math.min(...vectorHits.map((hit) => hit.similarity)) : 0;
    if (!stats) return { ranked: this.semantic(candidates, floor), read: new Map() };
    const cohort = this.deps.cohort ? await this.deps.cohort(vector) : [];

    const query = analyseQuery(input.query, stats);
    const level = similarityLevel(this.deps.modelId);
    const nearest = vectorHits.length > 0 ? Math.max(...vectorHits.map((hit) => hit.similarity)) : 0;
    // A memory one retrieval did not return ranks below everything it did: at a fixed place, not at the
    // request's depth, so that a limit-10 search scores as the limit-100 searches the model was fitted on.
    const unranked = Math.log1p(UNRANKED);
    const matches = new Map<string, TextMatch>();
    for (const candidate of candidates) matches.set(candidate.memoryId, matchText(query, candidate));
    const links = linkReplies(candidates);
    const gapOf = (candidate: Candidate) => (candidate.similarity ?? floor) - nearest;
    const pack = packSimilarity([...candidates.map((candidate) => candidate.similarity ?? floor), ...cohort]);
    const partial = candidates.map((candidate) => {
      const match = matches.get(candidate.memoryId) ?? matchText(query, candidate);
      const link = links.get(candidate.memoryId);
      const prompt = link?.prompt ?? null;
      const replies = link?.replies ?? [];
      const similarity = candidate.similarity ?? floor;
      const features: Features = {
        similarity: similarity - level,
        coverage: match.coverage,
        allTerms: match.allTerms,
        keyword: match.keyword,
        phrase: match.phrase,
        missingNames: 0,
        otherAuthor: 0,
        similarityGap: similarity - nearest,
        similarityLift: similarity - pack,
        vectorRank: candidate.vectorRank === null ? unranked : Math.log1p(candidate.vectorRank),
        keywordRank: candidate.keywordRank === null ? unranked : Math.log1p(candidate.keywordRank),
        promptCoverage: prompt ? (matches.get(prompt.memoryId)?.coverage ?? 0) : 0,
        // Relative to the memory's own: no neighbour is neutral (0), whatever the size of the collection.
        promptSimilarityGap: prompt ? gapOf(prompt) - gapOf(candidate) : 0,
        replyCoverage: Math.max(0, ...replies.map((reply) => matches.get(reply.memoryId)?.coverage ?? 0)),
        replySimilarityGap: replies.length > 0 ? Math.max(...replies.map(gapOf)) - gapOf(candidate) : 0,
      };
      return { candidate, similarity, features, logit: logit(this.model, features) };
    });
    partial.sort((a, b) => b.logit - a.logit || (a.candidate.memoryId < b.candidate.memoryId ? -1 : 1));

    // Names: the best candidates are read to see whom they mention and who wrote them; the others are taken
    // to mention none (and, when the query names an author, to be by someone else).
    let read = new Map<string, MemoryRecord>();
    if (query.names.length > 0 && partial.length > 0) {
      const window = Math.min(NAME_WINDOW_MAX, Math.max(NAME_WINDOW_MIN, 2 * (input.offset + input.limit)));
      read = new Map((await store.getMany(partial.slice(0, window).map((entry) => entry.candidate.memoryId))).map((memory) => [memory.id, memory]));
      const names = weighNames(query.names, read.values());
      for (const entry of partial) {
        const memory = read.get(entry.candidate.memoryId);
        entry.features = {
          ...entry.features,
          missingNames: memory ? 1 - names.mentioned(memory) : 1,
          otherAuthor: memory ? (names.byOtherAuthor(memory) ? 1 : 0) : names.namesAuthors ? 1 : 0,
        };
      }
    }
    const ordered = partial
      .map((entry) => ({ ...entry, logit: logit(this.model, entry.features) }))
      .sort((a, b) => b.logit - a.logit || (a.candidate.memoryId < b.candidate.memoryId ? -1 : 1));
    const top = ordered[0]?.logit ?? 0;
    // The calibration weighs more than the ranking value (model.ts), so its score orders the results: a
    // list always reads best score first.
    const ranked = ordered.map(
      (entry, rank): Scored => ({
        memoryId: entry.candidate.memoryId,
        seq: entry.candidate.seq,
        similarity: entry.similarity,
        bm25: entry.candidate.bm25,
        features: entry.features,
        logit: entry.logit,
        rank,
        score: calibratedScore(this.model.calibration, entry.logit, top, rank, entry.features),
        matched: matches.get(entry.candidate.memoryId)?.matched ?? [],
      }),
    );
    ranked.sort((a, b) => b.score - a.score || a.rank - b.rank);
    return { ranked, read };
  }

  private semantic(candidates: readonly Candidate[], floor: number): Scored[] {
    const calibration = scoringFor(this.deps.modelId).semantic;
    const level = similarityLevel(this.deps.modelId);
    return candidates
      .map((candidate): Scored => {
        const similarity = candidate.similarity ?? floor;
        const score = calibrate(similarity, calibration);
        return {
          memoryId: candidate.memoryId,
          seq: candidate.seq,
          similarity,
          bm25: 0,
          features: {
            similarity: similarity - level,
            coverage: 0,
            allTerms: 0,
            keyword: 0,
            phrase: 0,
            missingNames: 0,
            otherAuthor: 0,
            similarityGap: 0,
            similarityLift: 0,
            vectorRank: 0,
            keywordRank: 0,
            promptCoverage: 0,
            promptSimilarityGap: 0,
            replyCoverage: 0,
            replySimilarityGap: 0,
          },
          logit: Math.log(score / (1 - score)),
          rank: 0,
          score,
          matched: [],
        };
      })
      .sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : 1))
      .map((entry, rank) => ({ ...entry, rank }));
  }

  async search(store: MemoryStore, input: SearchInput & { readonly explain?: boolean }): Promise<SearchResult> {
    const { ranked, read } = await this.rank(store, input);
    const kept = ranked.filter((entry) => entry.score >= input.threshold);
    const page = kept.slice(input.offset, input.offset + input.limit);
    const missing = page.filter((entry) => !read.has(entry.memoryId)).map((entry) => entry.memoryId);
    for (const memory of await store.getMany(missing)) read.set(memory.id, memory);
    const hits: SearchHit[] = [];
    for (const entry of page) {
      const memory = read.get(entry.memoryId);
      // A memory deleted between the two reads simply drops out.
      if (!memory) continue;
      hits.push({
        memory,
        score: round4(entry.score),
        seq: entry.seq,
        ...(input.explain
          ? {
              explanation: {
                matchedTerms: entry.matched.map((match) => match.word),
                highlights: highlightRanges(memory.content, new Set(entry.matched.map((match) => match.term))),
                similarity: round4(entry.similarity),
                keywordScore: round4(entry.bm25),
                features: roundFeatures(entry.features),
                logit: round4(entry.logit),
                rank: entry.rank,
              },
            }
          : {}),
      });
    }
    return { hits, total: kept.length };
  }
}

function roundFeatures(features: Features): Features {
  return Object.fromEntries(Object.entries(features).map(([name, value]) => [name, round4(value)])) as unknown as Features;
}
