import type { KeywordCorpus } from '../../core/ports.js';
import { indexTerms } from '../../core/search/terms.js';
import type { MemoryFilter } from '../../core/types.js';

type Row = Record<string, unknown>;

/**
 * BM25's constants as LanceDB's full-text index scores with them (lance's inverted index: k1 1.2, b 0.75;
 * a test compares this module's scores with the index's own).
 */
const K1 = 1.2;
const B = 0.75;
/**
 * Passages kept at most: a bound on the memory (a 512-dimension vector is 2 KiB) and on the main thread's time
 * each search spends comparing them (bench/README.md, "Passages not yet indexed, searched in the process",
 * has what they cost). A bulk import passes it between two compactions; searches then read the new rows from
 * LanceDB until the next one.
 */
const CAPACITY = 2_048;

interface Passage {
  readonly accountId: string;
  readonly memoryId: string;
  readonly seq: number;
  readonly text: string;
  readonly spaceId: string;
  readonly tags: readonly string[];
  readonly createdAt: number;
  /** The vector scaled to length 1 (zero stays zero): a cosine similarity is then a dot product. */
  readonly unit: Float32Array;
  /** Each term's repeats (indexTerms), and their number: BM25's term frequency and passage length. */
  readonly frequencies: ReadonlyMap<string, number>;
  readonly length: number;
  /** The compactions started before it was committed (see compactionStarted). */
  readonly epoch: number;
}

export interface PendingVectorHit {
  readonly memoryId: string;
  readonly seq: number;
  readonly text: string;
  /** LanceDB's cosine distance: 1 - similarity. */
  readonly distance: number;
}

export interface PendingKeywordHit {
  readonly memoryId: string;
  readonly seq: number;
  readonly text: string;
  readonly score: number;
}

/**
 * The passages this process appended since the passages table was last compacted: the rows LanceDB's vector
 * and full-text indexes have not taken in yet. LanceDB searches such rows by reading every fragment written
 * since the compaction, one per commit, which is most of what a search costs a store under writes
 * (bench/README.md, issue #23, "Searches must not pay for rows waiting to be indexed"). Kept here, a search
 * asks LanceDB for the indexed rows alone (`fastSearch`) and compares these in the process: exactly for
 * vectors, with the index's BM25 for words.
 *
 * It serves searches only while it is complete: while every row outside the indexes is one of its own. It is
 * not after a start (rows a stopped daemon left unindexed; unless the indexes say none are), after a write it
 * cannot mirror (an update or a delete of passages: `invalidate`), nor once more rows came than it keeps; a
 * compaction that starts after any of these makes it complete again, since a compaction indexes every row the
 * table holds when it starts. A passage leaves when a compaction that started after its commit ends, not
 * before: a search that compared the set before reading LanceDB finds each row in one or the other (a row in
 * both is the same row, taken once).
 */
export class PendingPassages {
  private readonly passages = new Map<string, Passage>();
  /** Each term's passages: a full-text search visits the passages of its terms only. */
  private postings = new Map<string, Passage[]>();
  private epoch = 0;
  /** The epoch at the last write this set could not mirror (-1: none); a compaction started after it completes the set. */
  private invalidAt = -1;
  private complete = false;

  /** @param vectorIndexed whether the table has a vector index (without one LanceDB compares every row anyway). */
  constructor(
    private readonly vectorIndexed: () => boolean,
    private readonly capacity = CAPACITY,
  ) {}

  get size(): number {
    return this.passages.size;
  }

  /** Whether vector searches (and full-text ones) may ask LanceDB for the indexed rows alone. */
  servesVectors(): boolean {
    return this.complete && this.vectorIndexed();
  }

  servesKeywords(): boolean {
    return this.complete;
  }

  /** The indexes hold every row of the table (read at open): the set is complete from the start. */
  markComplete(): void {
    if (this.invalidAt < 0 && this.epoch === 0) this.complete = true;
  }

  /** Passages' rows as committed to the table (`TableWriter`'s appends); past the capacity, none until a compaction. */
  add(rows: readonly Row[]): void {
    if (this.passages.size + rows.length > this.capacity) {
      // The rows dropped are all the next compaction's to index: it starts after them.
      this.passages.clear();
      this.postings.clear();
      this.invalidate();
      return;
    }
    let replaced = false;
    for (const row of rows) {
      const vector = row['vector'];
      const text = row['text'];
      if (!(vector instanceof Float32Array) && !Array.isArray(vector)) continue;
      if (typeof text !== 'string') continue;
      const unit = vector instanceof Float32Array ? Float32Array.from(vector) : Float32Array.from(vector as number[]);
      const norm = Math.sqrt(dot(unit, unit));
      if (norm > 0) for (let i = 0; i < unit.length; i++) unit[i] = (unit[i] as number) / norm;
      const frequencies = new Map<string, number>();
      const terms = indexTerms(text);
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      const id = String(row['id']);
      // A passage appended again under its id replaces the first (its postings are rebuilt below).
      if (this.passages.delete(id)) replaced = true;
      const passage: Passage = {
        accountId: String(row['account_id']),
        memoryId: String(row['memory_id']),
        seq: Number(row['seq']),
        text,
        spaceId: String(row['space_id']),
        tags: Array.isArray(row['tags']) ? (row['tags'] as unknown[]).map(String) : [],
        createdAt: Number(row['created_at']),
        unit,
        frequencies,
        length: terms.length,
        epoch: this.epoch,
      };
      this.passages.set(id, passage);
      this.post(passage);
    }
    if (replaced) this.rebuildPostings();
  }

  /** A write to the passages other than an append (update, delete): the set no longer mirrors the table. */
  invalidate(): void {
    this.complete = false;
    this.invalidAt = this.epoch;
  }

  /** A compaction of the passages table starts; hand its token to compactionEnded. */
  compactionStarted(): number {
    this.epoch += 1;
    return this.epoch;
  }

  /** It ended: the rows committed before it started are indexed now. */
  compactionEnded(token: number): void {
    for (const [id, passage] of this.passages) if (passage.epoch < token) this.passages.delete(id);
    this.rebuildPostings();
    if (token > this.invalidAt) this.complete = true;
  }

  private rebuildPostings(): void {
    this.postings = new Map();
    for (const passage of this.passages.values()) this.post(passage);
  }

  private post(passage: Passage): void {
    for (const term of passage.frequencies.keys()) {
      const list = this.postings.get(term);
      if (list) list.push(passage);
      else this.postings.set(term, [passage]);
    }
  }

  /** The k nearest of the account's pending passages that pass the filter, nearest first. */
  nearest(accountId: string, filter: MemoryFilter, vector: Float32Array, k: number): PendingVectorHit[] {
    const norm = Math.sqrt(dot(vector, vector));
    const scored: { passage: Passage; similarity: number }[] = [];
    for (const passage of this.passages.values()) {
      if (!passes(passage, accountId, filter)) continue;
      scored.push({ passage, similarity: norm === 0 ? 0 : dot(vector, passage.unit) / norm });
    }
    scored.sort((a, b) => b.similarity - a.similarity);
    return scored.slice(0, k).map(({ passage, similarity }) => ({ memoryId: passage.memoryId, seq: passage.seq, text: passage.text, distance: 1 - similarity }));
  }

  /**
   * The k best of the account's pending passages for the query's words by BM25 (LanceDB's formula: per query
   * term, idf = ln(1 + (N - n + 0.5) / (n + 0.5)) times (k1 + 1) tf / (tf + k1 (1 - b + b dl / avgdl)),
   * over the corpus's statistics), best first; passages with none of the words are not hits.
   */
  keyword(accountId: string, filter: MemoryFilter, query: string, k: number, corpus: KeywordCorpus): PendingKeywordHit[] {
    const terms = [...new Set(indexTerms(query))];
    if (terms.length === 0 || this.passages.size === 0) return [];
    const documents = Math.max(corpus.passages, 1);
    const averageLength = corpus.averageLength > 0 ? corpus.averageLength : 1;
    const weights = terms.map((term) => {
      const frequency = Math.min(Math.max(corpus.documentFrequency(term), 1), documents);
      return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
    });
    const scores = new Map<Passage, number>();
    terms.forEach((term, index) => {
      const weight = weights[index] ?? 0;
      for (const passage of this.postings.get(term) ?? []) {
        if (!passes(passage, accountId, filter)) continue;
        const tf = passage.frequencies.get(term) ?? 0;
        const norm = K1 * (1 - B + (B * passage.length) / averageLength);
        scores.set(passage, (scores.get(passage) ?? 0) + (weight * (K1 + 1) * tf) / (tf + norm));
      }
    });
    const hits: PendingKeywordHit[] = [];
    for (const [passage, score] of scores) if (score > 0) hits.push({ memoryId: passage.memoryId, seq: passage.seq, text: passage.text, score });
    return hits.sort((a, b) => b.score - a.score).slice(0, k);
  }
}

function passes(passage: Passage, accountId: string, filter: MemoryFilter): boolean {
  if (passage.accountId !== accountId) return false;
  if (filter.spaceId !== undefined && passage.spaceId !== filter.spaceId) return false;
  if (filter.tags && filter.tags.length > 0 && !filter.tags.some((tag) => passage.tags.includes(tag))) return false;
  if (filter.after !== undefined && passage.createdAt < filter.after) return false;
  if (filter.before !== undefined && passage.createdAt > filter.before) return false;
  return true;
}

function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  // Four running sums: the loop's additions need not wait for each other.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += (a[i] as number) * (b[i] as number);
    s1 += (a[i + 1] as number) * (b[i + 1] as number);
    s2 += (a[i + 2] as number) * (b[i + 2] as number);
    s3 += (a[i + 3] as number) * (b[i + 3] as number);
  }
  for (; i < n; i++) s0 += (a[i] as number) * (b[i] as number);
  return s0 + s1 + s2 + s3;
}
