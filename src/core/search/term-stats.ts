import type { MemoryStore } from '../ports.js';
import { termSequence } from './terms.js';

/**
 * How many of an account's passages contain each term: what makes a word rare (and so telling) in this
 * user's memories. Search weighs a query's terms by it, so that "the share of the query a memory matches"
 * means the same for a one-word query and a question.
 */
export class TermStats {
  private readonly frequency = new Map<string, number>();
  private count = 0;

  get passages(): number {
    return this.count;
  }

  add(text: string): void {
    this.count += 1;
    for (const term of new Set(termSequence(text))) this.frequency.set(term, (this.frequency.get(term) ?? 0) + 1);
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

/** Below this many passages the statistics are recounted as soon as the count changes (it takes ~ms). */
const SMALL_CORPUS = 5_000;
/**
 * Up to SMALL_CORPUS a recount is one scan of every passage's text, and under steady saves every hybrid
 * search found the count changed and paid it (plus a count query per search): above this many passages the
 * statistics are checked at most every SMALL_RECHECK_MS instead, where a few saves move the frequencies little.
 * Tiny collections, whose frequencies one save does move, are still exact after every write.
 */
const TINY_CORPUS = 500;
const SMALL_RECHECK_MS = 1_000;
/** A large account's statistics are checked for change at most this often, and recounted in the background. */
const RECHECK_MS = 30_000;

interface Entry {
  stats: TermStats;
  checkedAt: number;
  rebuilding: Promise<void> | null;
  /** A small account's check and recount in flight: concurrent searches share it rather than each scanning. */
  checking: Promise<TermStats> | null;
  /** A write through this daemon since the last count (a changed memory keeps its number of passages). */
  dirty: boolean;
}

/**
 * Term statistics per account, counted from the store and recounted when the number of passages changes.
 * Counting every write where it happens would miss imports and other daemons on the same store; a recount
 * costs one scan of the passages' text (a few ms per thousand passages). A small account is recounted before
 * the search that notices the change; a large one keeps its statistics until a background recount is done
 * (a few saves change a large account's frequencies by little).
 */
export class TermStatsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(store: MemoryStore): Promise<TermStats> {
    const entry = this.entries.get(store.accountId);
    if (!entry) {
      const stats = await count(store);
      this.entries.set(store.accountId, { stats, checkedAt: this.now(), rebuilding: null, checking: null, dirty: false });
      return stats;
    }
    if (entry.stats.passages < SMALL_CORPUS) {
      // A write noted while a check runs is not in it: the search that follows the write waits for a new one.
      while (entry.checking) {
        const stats = await entry.checking;
        if (!entry.dirty) return stats;
      }
      if (entry.stats.passages >= TINY_CORPUS && this.now() - entry.checkedAt < SMALL_RECHECK_MS) return entry.stats;
      entry.checking = (async () => {
        const changed = entry.dirty || (await store.passageCount()) !== entry.stats.passages;
        entry.dirty = false;
        if (changed) entry.stats = await count(store);
        entry.checkedAt = this.now();
        return entry.stats;
      })().finally(() => {
        entry.checking = null;
      });
      return entry.checking;
    }
    if (!entry.rebuilding && this.now() - entry.checkedAt >= RECHECK_MS) {
      entry.checkedAt = this.now();
      entry.rebuilding = (async () => {
        if ((await store.passageCount()) !== entry.stats.passages) entry.stats = await count(store);
      })()
        .catch(() => undefined)
        .finally(() => {
          entry.rebuilding = null;
        });
    }
    return entry.stats;
  }

  /** Says that an account's memories changed through this daemon (a small account is recounted). */
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
