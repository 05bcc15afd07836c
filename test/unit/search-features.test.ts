import { describe, expect, it } from 'vitest';
import { linkReplies, mergeHits } from '../../src/core/search/candidates.js';
import { memoryPassages } from '../../src/core/chunking.js';
import { analyseQuery, matchText } from '../../src/core/search/features.js';
import { TermStats, TermStatsCache } from '../../src/core/search/term-stats.js';
import { containsPhrase, highlightRanges, queryTerms, termSequence } from '../../src/core/search/terms.js';
import type { MemoryStore } from '../../src/core/ports.js';

function statsOf(texts: readonly string[]): TermStats {
  const stats = new TermStats();
  for (const text of texts) stats.add(text);
  return stats;
}

describe('search terms', () => {
  it('drop function words, fold accents and stem as the keyword index does', () => {
    expect(queryTerms('What did Caroline research?').map((term) => term.term)).toEqual(['carolin', 'research']);
    expect(queryTerms('Café punctures').map((term) => [term.term, term.word])).toEqual([
      ['cafe', 'cafe'],
      ['punctur', 'punctures'],
    ]);
    expect(termSequence('The tyres were punctured')).toEqual(['tyre', 'punctur']);
    // Repeated words give one term.
    expect(queryTerms('run running runs').map((term) => term.term)).toEqual(['run']);
    expect(queryTerms('who is it?')).toEqual([]);
  });

  it('find phrases as consecutive terms', () => {
    expect(containsPhrase(termSequence('a new pressure valve for the boiler'), termSequence('pressure valves'))).toBe(true);
    expect(containsPhrase(termSequence('the valve and the pressure'), termSequence('pressure valve'))).toBe(false);
    expect(containsPhrase([], ['x'])).toBe(false);
  });

  it('highlight the words of the content whose stems match', () => {
    const text = 'Dropped the Connection; connecting again, said the conductor.';
    const ranges = highlightRanges(text, new Set(termSequence('connections')));
    expect(ranges.map(([start, end]) => text.slice(start, end))).toEqual(['Connection', 'connecting']);
    expect(highlightRanges(text, new Set())).toEqual([]);
  });
});

describe('term statistics', () => {
  it('weigh rare terms above common ones, and unseen terms as the rarest', () => {
    const stats = statsOf(['caroline went home', 'caroline painted', 'caroline ran', 'melanie painted a lake']);
    expect(stats.passages).toBe(4);
    expect(stats.documentFrequency('carolin')).toBe(3);
    expect(stats.idf('lake')).toBeGreaterThan(stats.idf('paint'));
    expect(stats.idf('paint')).toBeGreaterThan(stats.idf('carolin'));
    expect(stats.idf('zorblatt')).toBe(stats.idf('lake'));
    expect(stats.idf('carolin')).toBeGreaterThan(0);
  });

  it('are recounted for a small account when its passages change', async () => {
    const texts = ['alpha beta'];
    let scans = 0;
    const store = {
      accountId: 'acc',
      passageCount: async () => texts.length,
      scanPassages: async (visit: (text: string) => void) => {
        scans += 1;
        for (const text of texts) visit(text);
        return texts.length;
      },
    } as unknown as MemoryStore;
    const cache = new TermStatsCache();
    expect((await cache.get(store)).passages).toBe(1);
    await cache.get(store);
    expect(scans).toBe(1);
    texts.push('gamma');
    expect((await cache.get(store)).documentFrequency('gamma')).toBe(1);
    expect(scans).toBe(2);
    // Same number of passages, other text: a write through this daemon says so.
    texts[1] = 'delta';
    cache.changed('acc');
    expect((await cache.get(store)).documentFrequency('delta')).toBe(1);
  });

  it('are checked at most once a second above a tiny account, and concurrent searches share one recount', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `note ${i}`);
    let scans = 0;
    let counts = 0;
    const store = {
      accountId: 'acc',
      passageCount: async () => {
        counts += 1;
        return texts.length;
      },
      scanPassages: async (visit: (text: string) => void) => {
        scans += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const text of texts) visit(text);
        return texts.length;
      },
    } as unknown as MemoryStore;
    let now = 0;
    const cache = new TermStatsCache(() => now);
    await cache.get(store);
    texts.push('epsilon');
    cache.changed('acc');
    // Within the second: the statistics stand, neither counted nor scanned again.
    now = 500;
    expect((await cache.get(store)).documentFrequency('epsilon')).toBe(0);
    expect([scans, counts]).toEqual([1, 0]);
    // Past it: eight concurrent searches, one count and one scan.
    now = 1_600;
    const all = await Promise.all(Array.from({ length: 8 }, () => cache.get(store)));
    expect(all.every((stats) => stats.documentFrequency('epsilon') === 1)).toBe(true);
    expect([scans, counts]).toEqual([2, 0]);
    // Nothing written through this daemon: a count query, no scan.
    now = 2_700;
    await cache.get(store);
    expect([scans, counts]).toEqual([2, 1]);
  });
});

describe('candidate features', () => {
  const stats = statsOf(['tom baker joined globex', 'invoice from globex', 'lunch with marco', 'caroline painted a lake', 'caroline ran']);

  it('merge the two retrievals per memory with their ranks', () => {
    const merged = mergeHits(
      [
        { memoryId: 'a', seq: 0, text: 'a0', similarity: 0.6 },
        { memoryId: 'b', seq: 0, text: 'b0', similarity: 0.5 },
        { memoryId: 'a', seq: 1, text: 'a1', similarity: 0.7 },
      ],
      [
        { memoryId: 'c', seq: 0, text: 'c0', score: 3 },
        { memoryId: 'a', seq: 1, text: 'a1', score: 2 },
      ],
    );
    expect(merged.map((c) => [c.memoryId, c.seq, c.similarity, c.bm25, c.vectorRank, c.keywordRank, [...c.texts]])).toEqual([
      ['a', 1, 0.7, 2, 0, 1, ['a0', 'a1']],
      ['b', 0, 0.5, 0, 1, null, ['b0']],
      ['c', 0, null, 3, null, 0, ['c0']],
    ]);
  });

  it('measure coverage by term weight, whole matches and phrases', () => {
    const query = analyseQuery('Globex invoice', stats);
    const candidate = (text: string, bm25 = 0) => ({ memoryId: 'm', seq: 0, similarity: 0.5, bm25, texts: new Set([text]), vectorRank: 0, keywordRank: null });
    const both = matchText(query, candidate('Invoice 4471 from Globex', 4));
    expect(both).toMatchObject({ coverage: 1, allTerms: 1, phrase: 0 });
    expect(both.matched.map((term) => term.word)).toEqual(['globex', 'invoice']);
    expect(both.keyword).toBeCloseTo(4 / query.totalWeight, 6);
    expect(matchText(query, candidate('the globex invoice is late'))).toMatchObject({ coverage: 1, phrase: 1 });
    const one = matchText(query, candidate('Tom joined Globex'));
    expect(one.allTerms).toBe(0);
    expect(one.coverage).toBeGreaterThan(0);
    expect(one.coverage).toBeLessThan(1);
    expect(matchText(query, candidate('lunch with marco'))).toMatchObject({ coverage: 0, allTerms: 0, keyword: 0 });
    // A query of function words only has no terms to match.
    expect(matchText(analyseQuery('what is it', stats), candidate('what is it'))).toMatchObject({ coverage: 0, allTerms: 0 });
  });

  it('link a reply to the message it answers through its context', () => {
    const question = memoryPassages('How often do you run?', '', '', 'Melanie');
    const answer = memoryPassages('Three times a week.', '', 'Melanie: How often do you run?', 'Caroline');
    const unrelated = memoryPassages('Nice weather.', '', 'Someone: something else', 'Caroline');
    const hit = (memoryId: string, text: string) => ({ memoryId, seq: 0, text, similarity: 0.5 });
    const candidates = mergeHits([hit('q', question[0]!.text), hit('a', answer[0]!.text), hit('u', unrelated[0]!.text)], []);
    const links = linkReplies(candidates);
    expect(links.get('a')?.prompt?.memoryId).toBe('q');
    expect(links.get('q')?.replies.map((reply) => reply.memoryId)).toEqual(['a']);
    expect(links.get('u')).toEqual({ prompt: null, replies: [] });
  });

  it('name the capitalised names of a query', () => {
    expect(analyseQuery('What did Caroline paint at the lake?', stats).names).toEqual(['Caroline']);
    expect(analyseQuery('globex', stats).names).toEqual([]);
  });
});

describe('search model files (search.modelFile)', () => {
  it('read a fitted model and refuse anything else with a VALIDATION_ERROR that says what a model is', async () => {
    const { parseSearchModel, DEFAULT_SEARCH_MODEL, calibratedScore } = await import('../../src/core/search/model.js');
    expect(parseSearchModel(JSON.stringify(DEFAULT_SEARCH_MODEL), 'model.json')).toEqual(DEFAULT_SEARCH_MODEL);
    for (const text of ['not json', '{}', JSON.stringify({ ...DEFAULT_SEARCH_MODEL, bias: 'high' }), JSON.stringify({ ...DEFAULT_SEARCH_MODEL, calibration: {} })]) {
      expect(() => parseSearchModel(text, 'model.json')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
    // Scores fall down the ranking: with the rank, with the distance to the best candidate, with the value.
    const { calibration } = DEFAULT_SEARCH_MODEL;
    expect(calibratedScore(calibration, 1, 2, 0)).toBeGreaterThanOrEqual(calibratedScore(calibration, 1, 2, 10));
    expect(calibratedScore(calibration, 1, 1, 3)).toBeGreaterThanOrEqual(calibratedScore(calibration, 1, 3, 3));
    expect(calibratedScore(calibration, 2, 3, 3)).toBeGreaterThan(calibratedScore(calibration, 1, 3, 3));
  });
});
