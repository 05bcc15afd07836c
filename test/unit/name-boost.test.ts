import { describe, expect, it } from 'vitest';
import { nameMatcher, properNouns } from '../../src/core/answers/text.js';

/** The names hybrid search weighs (memory-service.ts NAME_PENALTY): the query's proper nouns, matched as written. */
describe('names in a query', () => {
  it('are its capitalised phrases, not its sentence openers, calendar words or lower-case words', () => {
    expect(properNouns('When did Caroline go to the LGBTQ support group?')).toEqual(['Caroline', 'LGBTQ']);
    expect(properNouns("What is Caroline's identity?")).toEqual(['Caroline']);
    expect(properNouns('Sarah Chen met whom at Acme Corp in May?')).toEqual(['Sarah Chen', 'Acme Corp']);
    expect(properNouns('what did caroline say about the roadmap')).toEqual([]);
  });

  it('match whole words, case-sensitively, and count the share of names a text mentions', () => {
    const matches = nameMatcher(['Caroline', 'Acme Corp']);
    expect(matches('Caroline: I start at Acme Corp on Monday.')).toBe(1);
    expect(matches('Caroline: I may start soon.')).toBe(0.5);
    expect(matches('Carolines of acme corp')).toBe(0);
    expect(nameMatcher([])('anything')).toBe(0);
    expect(nameMatcher(['C++'])('I write C++ daily')).toBe(1);
  });
});
