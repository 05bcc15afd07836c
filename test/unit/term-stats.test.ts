import { describe, expect, it } from 'vitest';
import type { MemoryStore } from '../../src/core/ports.js';
import { TermStatsCache } from '../../src/core/search/term-stats.js';

/** The two store calls the statistics make, over a list of passage texts the test changes at will. */
function fakeStore(texts: string[]) {
  const calls = { counts: 0, scans: 0 };
  let hold: Promise<void> | null = null;
  const store = {
    accountId: 'acc',
    passageCount: async () => {
      calls.counts += 1;
      return texts.length;
    },
    scanPassages: async (visit: (text: string) => void) => {
      calls.scans += 1;
      if (hold) await hold;
      for (const text of texts) visit(text);
      return texts.length;
    },
  } as unknown as MemoryStore;
  return { store, calls, holdScans: (until: Promise<void>) => (hold = until) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const many = (count: number, word: string) => Array.from({ length: count }, (_, i) => `${word} note ${i}`);

describe('term statistics', () => {
  it('counts the passages saved through the daemon in at once, with no recount in the search path', async () => {
    let now = 0;
    const texts = many(600, 'harbor');
    const { store, calls } = fakeStore(texts);
    const cache = new TermStatsCache(() => now);
    expect((await cache.get(store)).passages).toBe(600);
    expect(calls.scans).toBe(1);
    texts.push('lantern festival');
    cache.added('acc', ['lantern festival']);
    const stats = await cache.get(store);
    expect(stats.passages).toBe(601);
    expect(stats.documentFrequency('lantern')).toBe(1);
    now += 5_000;
    await cache.get(store); // the periodic check finds the count unchanged: no scan
    await settle();
    expect(calls.scans).toBe(1);
    expect(calls.counts).toBe(1);
  });

  it('finds what the daemon did not save (an export restored, another daemon) in the background, without holding a search', async () => {
    let now = 0;
    const texts = many(600, 'harbor');
    const { store, calls, holdScans } = fakeStore(texts);
    const cache = new TermStatsCache(() => now);
    await cache.get(store);
    texts.push('lantern harbor');
    let release = () => undefined as void;
    holdScans(new Promise<void>((resolve) => (release = resolve)));
    now += 500;
    expect((await cache.get(store)).passages).toBe(600); // checked less than a second ago: as counted
    now += 600;
    // The check and the recount run behind the search, which answers with the statistics it has.
    expect((await cache.get(store)).passages).toBe(600);
    await settle();
    expect(calls.scans).toBe(2);
    release();
    await settle();
    expect((await cache.get(store)).documentFrequency('lantern')).toBe(1);
  });

  it('recounts a small account before its next search after an edit or a delete, and a tiny one at every search', async () => {
    let now = 0;
    const texts = many(600, 'harbor');
    const { store, calls } = fakeStore(texts);
    const cache = new TermStatsCache(() => now);
    await cache.get(store);
    texts.splice(0, 1, 'meadow walk');
    cache.changed('acc');
    cache.added('acc', ['ignored while a recount is due']);
    now += 1_000;
    const stats = await cache.get(store);
    expect(calls.scans).toBe(2);
    expect(stats.documentFrequency('meadow')).toBe(1);
    expect(stats.passages).toBe(600);

    const tinyTexts = many(10, 'falcon');
    const tiny = fakeStore(tinyTexts);
    const tinyCache = new TermStatsCache(() => 0);
    await tinyCache.get(tiny.store);
    tinyTexts.push('copper kettle');
    expect((await tinyCache.get(tiny.store)).documentFrequency('copper')).toBe(1);
    expect(tiny.calls.counts).toBe(1);
  });

  it('never holds a large account\'s search for a recount, even after an edit', async () => {
    let now = 0;
    const texts = many(5_000, 'summit');
    const { store, calls } = fakeStore(texts);
    const cache = new TermStatsCache(() => now);
    await cache.get(store);
    cache.changed('acc');
    now += 1_000;
    await cache.get(store);
    await settle();
    expect(calls.scans).toBe(1); // within the 30 s between checks
    now += 30_000;
    await cache.get(store);
    await settle();
    expect(calls.scans).toBe(2);
  });
});
