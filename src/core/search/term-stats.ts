import type { KeywordCorpus, MemoryStore } from '../ports.js';
import { isIndexStopword, stem, tokens } from './terms.js';

/**
 * How many of an account's passages contain each term: what makes a word rare (and so telling) in this
 * user's memories. Search weighs a query's terms by it, so that "the share of the query a memory matches"
 * means the same for a one-word query and a question.
 */
export class TermStats implements KeywordCorpus {
  private readonly frequency = new Map<string, number>();
  private count = 0;
  private terms = 0;

  get passages(): number {
    return this.count;
  }

  get averageLength(): number {
    return this.count === 0 ? 0 : this.terms / this.count;
  }

  /**
   * Every word's stem counts towards its frequency (search weighs the words it keeps, the store scores the
   * full-text index's terms, and the two lists of stop words differ); a passage's length is counted as the
   * full-text index counts it (indexTerms), so that the store can score the passages its index has not taken
   * in yet as the index would.
   */
  add(text: string): void {
    const terms = new Set<string>();
    this.count += 1;
    for (const token of tokens(text)) {
      if (!isIndexStopword(token)) this.terms += 1;
      terms.add(stem(token));
    }
    for (const term of terms) this.frequency.set(term, (this.frequency.get(term) ?? 0) + 1);
  }

  documentFrequency(term: string): number {
    return this.frequency.get(term) ?? 0;
  }

  /**
   * BM25's inverse document frequency, never below a floor: a term in every passage still says a little
   * (the passage is about it), and a term the statistics have not seen yet (saved since they were counted)
   * is as rare as one seen once.
   */
  idf(term: string): number {
    const n = Math.max(this.count, 1);
    const df = Math.min(Math.max(this.documentFrequency(term), 1), n);
    return Math.max(MIN_IDF, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
}

const MIN_IDF = 0.05;

/**
 * Below this many passages an edit or a delete is recounted before the next search, at most every
 * SMALL_RECHECK_MS (under steady edits every search would pay a recount otherwise).
 */
const SMALL_CORPUS = 5_000;
/**
 * Passages saved through this daemon are counted in as they commit (`added`), so the statistics stay exact
 * without a recount. What this daemon does not see (rows restored from an export, another daemon on the same store) is
 * found by comparing the number of passages: tiny collections, whose frequencies one save does move, before
 * every search; larger ones at most every SMALL_RECHECK_MS, in the background, out of the searches' path
 * (during a bulk ingest, recounts there held searches: bench/README.md, "Searches during a 10,000-item ingest").
 */
const TINY_CORPUS = 500;
const SMALL_RECHECK_MS = 1_000;
/** A large account's statistics are checked for change at most this often, and recounted in the background. */
const RECHECK_MS = 30_000;

interface Entry {
  stats: TermStats;
  checkedAt: number;
  /** A check and recount in flight: concurrent searches share it rather than each scanning. */
  checking: Promise<TermStats> | null;
  /** The check in flight holds searches (a tiny account's, or an edit's recount). */
  awaited: boolean;
  /** A write through this daemon since the last count (a changed memory keeps its number of passages). */
  dirty: boolean;
}

/**
 * Term statistics per account, counted from the store, then kept up to date with the passages this daemon
 * saves, and recounted when the number of passages says that something else changed them. A recount costs
 * one scan of the passages' text (a few ms per thousand passages). A small account edited or deleted from is
 * recounted before its next search; a large one keeps its statistics until a background recount is done
 * (a few edits change a large account's frequencies by little).
 */
export class TermStatsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(store: MemoryStore): Promise<TermStats> {
    const entry = this.entries.get(store.accountId);
    if (!entry) {
      const stats = await count(store);
      this.entries.set(store.accountId, { stats, checkedAt: this.now(), checking: null, awaited: false, dirty: false });
      return stats;
    }
    const tiny = entry.stats.passages < TINY_CORPUS;
    const small = entry.stats.passages < SMALL_CORPUS;
    const due = this.now() - entry.checkedAt >= (small ? SMALL_RECHECK_MS : RECHECK_MS);
    // A tiny account is checked before every search; a small one recounted before the search after an edit,
    // and the searches that come while that recount runs wait for it too.
    if (tiny || (small && ((entry.dirty && due) || entry.awaited))) {
      // A write noted while a check runs is not in it: the search that follows the write waits for a new one.
      while (entry.checking) {
        const stats = await entry.checking;
        if (!entry.dirty) return stats;
      }
      return this.check(store, entry, true);
    }
    if (due && !entry.checking) {
      // Stamped now, not only on success: a store that fails the check is asked again after the interval,
      // not by every search.
      entry.checkedAt = this.now();
      void this.check(store, entry, false).catch(() => undefined);
    }
    return entry.stats;
  }

  /** Counts the passages, and recounts the statistics when the number changed (or a write said so). */
  private check(store: MemoryStore, entry: Entry, awaited: boolean): Promise<TermStats> {
    entry.awaited = awaited;
    entry.checking = (async () => {
      const changed = entry.dirty || (await store.passageCount()) !== entry.stats.passages;
      entry.dirty = false;
      if (changed) entry.stats = await count(store);
      entry.checkedAt = this.now();
      return entry.stats;
    })().finally(() => {
      entry.checking = null;
      entry.awaited = false;
    });
    return entry.checking;
  }

  /**
   * Passages this daemon committed (new memories): counted in at once. A recount in flight may miss them;
   * the next check then finds the number of passages changed and recounts.
   */
  added(accountId: string, texts: readonly string[]): void {
    const entry = this.entries.get(accountId);
    if (!entry || entry.dirty) return;
    for (const text of texts) entry.stats.add(text);
  }

  /** Says that an account's passages changed through this daemon (an edit, a delete): recounted before the next search. */
  changed(accountId: string): void {
    const entry = this.entries.get(accountId);
    if (entry) entry.dirty = true;
  }
}

async function count(store: MemoryStore): Promise<TermStats> {
  const stats = new TermStats();
  await store.scanPassages((text) => stats.add(text));
  return stats;
}
