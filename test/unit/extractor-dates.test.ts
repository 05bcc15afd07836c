import { describe, expect, it } from 'vitest';
import { BuiltinExtractor } from '../../src/providers/builtin/builtin-extractor.js';

/** The dates the built-in extractor gives facts (validFrom), read against the note's own time. */

const extractor = new BuiltinExtractor();
// A note written on 28 November 2026.
const since = async (text: string) => (await extractor.extract({ text, referenceTime: Date.UTC(2026, 10, 28) })).facts.map((fact) => `${fact.subject} ${fact.predicate} ${fact.object} ${fact.validFrom}`);

describe('fact dates without a year', () => {
  it('a month in a sentence in the past tense is the last one, not the next one', async () => {
    expect(await since('Kofi Mensah joined Brightline in September.')).toEqual(['Kofi Mensah WORKS_AT Brightline 2026-09-01']);
    expect(await since('Lena Vogel moved to Porto in March.')).toEqual(['Lena Vogel LIVES_IN Porto 2026-03-01']);
    expect(await since('Kofi Mensah joined Brightline in February.')).toEqual(['Kofi Mensah WORKS_AT Brightline 2026-02-01']);
  });

  it('a month still ahead in the future tense, or with its year, stays as written', async () => {
    expect(await since('Lena Vogel will move to Porto in March.')).toEqual(['Lena Vogel LIVES_IN Porto 2027-03-01']);
    expect(await since('Kofi Mensah joined Brightline in September 2027.')).toEqual(['Kofi Mensah WORKS_AT Brightline 2027-09-01']);
  });

  it('a move still to come without its day is a plan, not where someone lives', async () => {
    expect(await since('Lena Vogel will move to Porto.')).toEqual([]);
    expect(await since('Lena Vogel is moving to Porto.')).toEqual([]);
    expect(await since('Lena Vogel is moving to Porto next year.')).toEqual(['Lena Vogel LIVES_IN Porto 2027-01-01']);
    expect(await since('Lena Vogel moved to Porto.')).toEqual(['Lena Vogel LIVES_IN Porto undefined']);
  });

  it('a move to an organisation is a new employer, not a place to live', async () => {
    expect(await since('Priya Nair moved to Tidal Robotics in October 2026.')).toEqual(['Priya Nair WORKS_AT Tidal Robotics 2026-10-01']);
    expect(await since('Ravi Shah moved to Austin Capital last year.')).toEqual(['Ravi Shah WORKS_AT Austin Capital 2025-01-01']);
    expect(await since('Lena Vogel moved to Porto in March.')).toEqual(['Lena Vogel LIVES_IN Porto 2026-03-01']);
  });

  it('a date that names its year ends there, whatever follows it', async () => {
    const dates = async (text: string) =>
      (await extractor.extract({ text, referenceTime: Date.UTC(2026, 10, 28) })).entities.filter((entity) => entity.type === 'date').map((entity) => entity.name);
    expect(await dates('Priya Nair moved to Tidal Robotics in October 2025 after four years at Globex.')).toEqual(['October 2025']);
    expect(await dates('Kai Brandt joined Initech on 3 May 2024, after a long search.')).toEqual(['3 May 2024']);
  });
});
