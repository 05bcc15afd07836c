import { describe, expect, it } from 'vitest';
import { nameMatcher, queryNames } from '../../src/core/query-names.js';

describe('query names', () => {
  it('are capitalised words and runs of them, anywhere but at the start of a sentence', () => {
    expect(queryNames('When did Caroline go to the LGBTQ support group?')).toEqual(['Caroline', 'LGBTQ']);
    expect(queryNames("What is Caroline's identity?")).toEqual(['Caroline']);
    expect(queryNames('Who did Sarah Chen meet at Acme Corp, and where?')).toEqual(['Sarah Chen', 'Acme Corp']);
    expect(queryNames('Did Melanie, Caroline and I go out? Yes. Then Jon left.')).toEqual(['Melanie', 'Caroline', 'Jon']);
    expect(queryNames('Sarah said what?')).toEqual([]);
    expect(queryNames('what did caroline say about the roadmap')).toEqual([]);
    expect(queryNames('')).toEqual([]);
  });

  it('match whole words, case-sensitively, and count the share of names a text mentions', () => {
    const matches = nameMatcher(['Caroline', 'May']);
    expect(matches('Caroline: I went there in May.')).toBe(1);
    expect(matches('Caroline: I may go.')).toBe(0.5);
    expect(matches('Carolines and mayhem')).toBe(0);
    expect(nameMatcher([])('anything')).toBe(0);
    expect(nameMatcher(['C++'])('I write C++ daily')).toBe(1);
  });
});
