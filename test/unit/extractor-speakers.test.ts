import { describe, expect, it } from 'vitest';
import { BuiltinExtractor } from '../../src/providers/builtin/builtin-extractor.js';

/** The people of a chat line as the built-in extractor reads them: who speaks it ("Nate: ..."), and who is spoken to. */

const extractor = new BuiltinExtractor();
const people = async (text: string) =>
  (await extractor.extract({ text, referenceTime: Date.UTC(2026, 10, 29) })).entities.filter((entity) => entity.type === 'person').map((entity) => entity.name);

describe('speakers of a chat line', () => {
  it('a line opened by a name and a colon names its speaker, one word or several', async () => {
    // Before, the tagger read a line's first word as anything but a name, and these gave no one.
    expect(await people('Nate: I adopted a turtle last week.')).toEqual(['Nate']);
    expect(await people('Maria: ok, see you at six')).toEqual(['Maria']);
    expect(await people('Priya Patel: the offsite budget is 4000 euros, Omar Haddad approved it.')).toEqual(['Priya Patel', 'Omar Haddad']);
  });

  it('each line of a transcript names its own speaker', async () => {
    expect((await people('Joanna: I got the job!\nNate: Congrats! I knew you would.')).sort()).toEqual(['Joanna', 'Nate']);
  });

  it('labels that are not people stay out: notes, summaries, lists, replies', async () => {
    for (const text of ['Note: the gate is locked at nine.', 'Weather: rain all day', 'Question: where is the key?', 'Packing: tent and boots', 'Action items: call the plumber', 'TODO: buy milk']) {
      expect(await people(text), text).toEqual([]);
    }
    // A person named after such a label is still found, the label is not.
    expect(await people('Summary: Tom agreed to the plan.')).toEqual(['Tom']);
  });
});

describe('the person spoken to', () => {
  it('is named without the greeting that opens the sentence', async () => {
    // Before, "Congrats Caroline" was a person of its own in a chat, or nobody in a line alone.
    expect(await people('Congrats Caroline! That is huge.')).toEqual(['Caroline']);
    expect(await people('Woah Joanna, that is amazing!')).toEqual(['Joanna']);
    expect(await people('Thanks Priya Raman for the slides.')).toEqual(['Priya Raman']);
  });
});

describe('"I" on a line a person speaks', () => {
  const facts = async (text: string) =>
    (await extractor.extract({ text, referenceTime: Date.UTC(2026, 10, 29) })).facts.map((fact) => `${fact.subject} ${fact.predicate} ${fact.object}`);

  it('is the speaker, so what they say of themselves is a fact about them', async () => {
    // Before, "I" was never resolved and these lines stated nothing.
    expect(await facts('Nate: I work at Globex.')).toEqual(['Nate WORKS_AT Globex']);
    expect(await facts("Nate: I'm the CTO of Globex.")).toEqual(['Nate CTO_OF Globex']);
    expect(await facts("Maya Lopez: I've joined Initech.")).toEqual(['Maya Lopez WORKS_AT Initech']);
    expect(await facts('Joanna: I live in Boston.\nNate: I moved to Lisbon in March.')).toEqual(['Joanna LIVES_IN Boston', 'Nate LIVES_IN Lisbon']);
  });

  it('is nobody without a speaker, and never a name of its own', async () => {
    expect(await facts('I work at Globex.')).toEqual([]);
    expect(await facts('Note: I work at Globex.')).toEqual([]);
    // The tokenizer keeps "I'm" whole and capitalised: it was a person "I'm", the CTO.
    expect(await people("I'm the CTO of Globex.")).toEqual([]);
    expect(await facts("I'm the CTO of Globex.")).toEqual([]);
  });
});
