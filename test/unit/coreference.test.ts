import { describe, expect, it } from 'vitest';
import { BuiltinExtractor } from '../../src/providers/builtin/builtin-extractor.js';

/** Pronoun resolution in the built-in extractor (src/providers/builtin/coreference.ts), seen from its facts. */

const extractor = new BuiltinExtractor();
const extract = (text: string) => extractor.extract({ text, referenceTime: Date.UTC(2026, 2, 10) });
const factsOf = async (text: string) => (await extract(text)).facts.map((fact) => `${fact.subject} ${fact.predicate} ${fact.object}`);

describe('pronouns in the built-in extractor', () => {
  it('reads a fact about the person a "she" stands for, from the source sentence, less confidently than with the name', async () => {
    const text = 'Met Sarah Chen at the Berlin conference; she is the CFO of Acme Corp.';
    const { facts } = await extract(text);
    expect(facts).toHaveLength(1);
    const fact = facts[0];
    expect(fact).toMatchObject({ subject: 'Sarah Chen', predicate: 'CFO_OF', object: 'Acme Corp', excerpt: text });
    const named = (await extract('Sarah Chen is the CFO of Acme Corp.')).facts[0];
    expect(named?.predicate).toBe('CFO_OF');
    expect(fact?.confidence).toBeLessThan(named?.confidence ?? 0);
  });

  it('resolves a pronoun to the one person named before it, in an earlier sentence too', async () => {
    const { facts } = await extract('Tom Baker called. He works at Globex now.');
    expect(facts.map((fact) => [fact.subject, fact.predicate, fact.object, fact.excerpt])).toEqual([['Tom Baker', 'WORKS_AT', 'Globex', 'He works at Globex now.']]);
    expect(await factsOf('Met Tom Baker. He joined Initech in 2024.')).toEqual(['Tom Baker WORKS_AT Initech']);
    expect(await factsOf('Sarah Chen is great. She lives in Lisbon.')).toEqual(['Sarah Chen LIVES_IN Lisbon']);
    expect(await factsOf("Lunch with Sarah Chen. She's the CFO of Acme Corp.")).toEqual(['Sarah Chen CFO_OF Acme Corp']);
    expect(await factsOf('Dinner with Ana Lopez; her company, Acme Corp, is hiring.')).toEqual(['Ana Lopez WORKS_AT Acme Corp']);
    // A one-word name beside the employer noun is the company.
    expect(await factsOf('Lunch with Ana Lopez; her company, Initech, is hiring.')).toEqual(['Ana Lopez WORKS_AT Initech']);
    expect(await factsOf('Tom Baker is great. His employer is Globex.')).toEqual(['Tom Baker WORKS_AT Globex']);
  });

  it('resolves to the most recent person when that person is the subject of an earlier clause', async () => {
    expect(await factsOf('Tom Baker met Ana Lopez. Ana Lopez is nice, and she works at Globex.')).toEqual(['Ana Lopez WORKS_AT Globex']);
  });

  it('uses only the gender the text states: honorifics, family words and pronouns already resolved', async () => {
    expect(await factsOf('Mrs. Adeyemi met Mr. Lindqvist. He is based in Stockholm.')).toEqual(['Mr. Lindqvist LOCATED_IN Stockholm']);
    expect(await factsOf('Mr. Lindqvist met Mrs. Adeyemi. He is based in Stockholm.')).toEqual(['Mr. Lindqvist LOCATED_IN Stockholm']);
    expect(await factsOf('Sarah Chen called my brother. She works at Globex.')).toEqual(['Sarah Chen WORKS_AT Globex']);
    expect(await factsOf('Sarah Chen is nice. She met David Okafor. He works at Globex.')).toEqual(['David Okafor WORKS_AT Globex']);
  });

  it('leaves a pronoun alone when more than one person could be meant', async () => {
    expect(await factsOf('Lunch with Alex Morgan and Sam Rivera. He leads the data team at Oscorp.')).toEqual([]);
    expect(await factsOf('Sarah Chen met Tom Baker. She works at Globex.')).toEqual([]);
    expect(await factsOf('Tom Baker met Ana Lopez; Ana Lopez said she works at Globex.')).toEqual([]);
    // Someone left unnamed ("my sister", "her son") is a candidate too.
    expect(await factsOf('Dinner with my sister and Elena Petrova. She lives in Lisbon now.')).toEqual([]);
    expect(await factsOf('Ana Lopez says her son is fine; he works at Globex.')).toEqual([]);
  });

  it('leaves a pronoun alone with no person before it, or only the one written to', async () => {
    expect(await factsOf('She works at Globex.')).toEqual([]);
    expect(await factsOf('He joined Initech last year. Tom Baker told me.')).toEqual([]);
    expect(await factsOf('Thanks, Olivia! She lives in Malmo now.')).toEqual([]);
    expect(await factsOf('Thanks, Jessica! The scarf is from my aunt. She lives in Malmo now.')).toEqual([]);
    expect(await factsOf('Jessica Alvarez: she lives in Malmo now.')).toEqual([]);
  });

  it('never resolves "I", "we", "they", nor an "it" that is not clearly the company', async () => {
    expect(await factsOf('Tom Baker called. I work at Globex.')).toEqual([]);
    expect(await factsOf('Tom Baker called. We moved to Lisbon.')).toEqual([]);
    expect(await factsOf('Tom Baker called. They work at Initech.')).toEqual([]);
    expect(await factsOf('Acme Corp is growing. It is based in Berlin.')).toEqual(['Acme Corp LOCATED_IN Berlin']);
    expect(await factsOf('We signed with Acme Corp. It is based in Berlin.')).toEqual([]);
  });

  it('never gives an entity, or a fact whose subject or object is, a pronoun', async () => {
    const pronouns = new Set(['i', 'me', 'we', 'us', 'you', 'he', 'him', 'his', 'she', 'her', 'hers', 'it', 'its', 'they', 'them', 'their']);
    const texts = [
      'She works at Globex. He joined Initech. They moved to Lisbon.',
      'Her company, Acme Corp, is hiring. His startup Initech raised money.',
      "She's the CFO of Acme Corp. He's based in Berlin. It is headquartered in Rotterdam.",
      'Met Sarah Chen and Tom Baker; she is the CFO of Acme Corp and he works at Globex.',
      'HER team met HIM at Globex. Them again!',
    ];
    for (const text of texts) {
      const { entities, facts } = await extract(text);
      for (const entity of entities) for (const name of [entity.name, ...entity.aliases]) expect(pronouns.has(name.toLowerCase()), `${name} in "${text}"`).toBe(false);
      for (const fact of facts) {
        expect(pronouns.has(fact.subject.toLowerCase()), `${fact.subject} in "${text}"`).toBe(false);
        expect(pronouns.has(fact.object.toLowerCase()), `${fact.object} in "${text}"`).toBe(false);
      }
    }
  });
});
