import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from '../../src/api/json-depth.js';

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays, and stops at the limit', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('[]', 0)).toBe(true);
    expect(jsonDepthExceeds('"text"', 0)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(100_000), 32)).toBe(true);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[{{{{' }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ a: 'say \\"[[[[\\" \\\\' }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ a: '\\', b: [[[]]] }), 3)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ a: '\\', b: [[]] }), 3)).toBe(false);
  });

  it('siblings do not add up', () => {
    expect(jsonDepthExceeds('[[1],[2],[3],[4]]', 2)).toBe(false);
  });
});
