import { describe, expect, it } from 'vitest';
import { answerConfidence } from '../../src/core/answers/answer-calibration.js';
import { findFactAnswers, type FactLookup } from '../../src/core/answers/fact-answers.js';
import { analyseQuestion, answerType, relationsOf } from '../../src/core/answers/question.js';
import { UNKNOWN_TALLY } from '../../src/core/knowledge/entity-tally.js';
import type { EntityRecord, FactRecord } from '../../src/core/knowledge/types.js';
import type { EntityType } from '../../src/providers/spec.js';

function entity(id: string, name: string, type: EntityType, aliases: string[] = []): EntityRecord {
  return { id, name, type, aliases, properties: {}, mentions: 1, firstSeen: 0, lastSeen: 0, relatedDocuments: [], matchKeys: [], tally: UNKNOWN_TALLY };
}

function fact(id: string, subject: EntityRecord, predicate: string, object: EntityRecord | string, extra: Partial<FactRecord> = {}): FactRecord {
  const objectName = typeof object === 'string' ? object : object.name;
  return {
    id,
    subjectId: subject.id,
    subject: subject.name,
    predicate,
    object: objectName,
    objectId: typeof object === 'string' ? null : object.id,
    category: 'relationship',
    statement: `${subject.name} ${predicate} ${objectName}`,
    confidence: 0.8,
    source: { documentId: `mem_${id}`, excerpt: `${subject.name} ${predicate} ${objectName}` },
    extractedAt: 0,
    validFrom: null,
    validTo: null,
    supersededBy: null,
    supports: [],
    ...extra,
  };
}

const sarah = entity('e1', 'Sarah Chen', 'person', ['Sarah']);
const acme = entity('e2', 'Acme Corp', 'company', ['ACME']);
const tom = entity('e3', 'Tom Baker', 'person');
const globex = entity('e4', 'Globex', 'company');
const hooli = entity('e5', 'Hooli', 'company');
const kofi = entity('e6', 'Kofi Mensah', 'person');
const brightline = entity('e7', 'Brightline', 'company');
const ENTITIES = [sarah, acme, tom, globex, hooli, kofi, brightline];
const FACTS = [
  fact('f1', sarah, 'CFO_OF', acme, { confidence: 0.9 }),
  fact('f2', tom, 'WORKS_AT', globex, { confidence: 0.85, validFrom: Date.UTC(2024, 2, 1), source: { documentId: 'mem_f2', excerpt: 'Tom Baker joined Globex in March 2024.' } }),
  fact('f3', tom, 'WORKS_AT', hooli, { confidence: 0.85, validTo: Date.UTC(2024, 2, 1), supersededBy: 'f2' }),
  fact('f4', sarah, 'WORKS_AT', acme, { confidence: 0.7 }),
  fact('f5', kofi, 'WORKS_AT', brightline, { confidence: 0.85, validFrom: Date.UTC(2026, 8, 1), source: { documentId: 'mem_f5', excerpt: 'Kofi Mensah started at Brightline in September.' } }),
];

const lookup: FactLookup = {
  async entitiesNamed(_account, names) {
    const wanted = names.map((name) => name.toLowerCase());
    return ENTITIES.flatMap((e) => {
      const name = [e.name, ...e.aliases].find((alias) => wanted.includes(alias.toLowerCase()));
      return name ? [{ entity: e, name }] : [];
    });
  },
  async factsAbout(_account, ids) {
    return FACTS.filter((f) => ids.includes(f.subjectId) || (f.objectId !== null && ids.includes(f.objectId)));
  },
  async entitiesByIds(_account, ids) {
    return ENTITIES.filter((e) => ids.includes(e.id));
  },
};

const answer = async (question: string) => findFactAnswers(lookup, 'acct', question, analyseQuestion(question));

describe('question analysis', () => {
  it('reads the answer type', () => {
    expect(answerType('Who is the CFO of Acme Corp?')).toBe('person');
    expect(answerType('Where does Tom live?')).toBe('location');
    expect(answerType('Where does Tom work?')).toBe('company');
    expect(answerType('When did Tom join Globex?')).toBe('date');
    expect(answerType('Which company does Tom work for?')).toBe('company');
    expect(answerType('How many people came?')).toBe('quantity');
    expect(answerType('What did Sarah say?')).toBe('other');
  });

  it('reads relations from synonyms and from a predicate\'s own words', () => {
    expect(relationsOf('Who is employed by Globex?')).toContain('WORKS_AT');
    expect(relationsOf('Who joined Globex?')).toContain('WORKS_AT');
    expect(relationsOf('What was the revenue of Globex?', ['REVENUE', 'CFO_OF'])).toEqual(['REVENUE']);
    expect(relationsOf('What did Sarah say about lunch?')).toEqual([]);
  });

  it('names include the parts of a capitalised run and lower-case words', () => {
    const { names } = analyseQuestion('Who is the CFO of Acme Corp?');
    expect(names).toContain('Acme Corp');
    expect(analyseQuestion('who works at globex?').names).toContain('globex');
  });

  it('tells questions about the past', () => {
    expect(analyseQuestion('Where does Tom work?').past).toBe(false);
    expect(analyseQuestion('Where did Tom work before?')).toMatchObject({ past: true, earlier: true });
  });
});

describe('fact answers', () => {
  it('answers with the missing side, through an alias, citing the fact\'s memory', async () => {
    const [first] = await answer('Who is the CFO of ACME?');
    expect(first).toMatchObject({ answer: 'Sarah Chen', sourceId: 'mem_f1', confidence: 0.9, primary: true });
  });

  it('takes only a side of the asked type', async () => {
    // Sarah's facts point at a company; "where" wants a location: no fact answers.
    expect(await answer('Where did I meet Sarah Chen?')).toEqual([]);
    expect(await answer('Which company does Sarah Chen work at?')).toMatchObject([{ answer: 'Acme Corp' }]);
    // "Where ... work?" asks for the employer.
    expect(await answer('Where does Sarah Chen work?')).toMatchObject([{ answer: 'Acme Corp' }]);
  });

  it('answers "when" with the date as the note wrote it', async () => {
    expect((await answer('When did Tom Baker join Globex?'))[0]).toMatchObject({ answer: 'March 2024', validFrom: '2024-03-01' });
    // "start at" asks about the job too.
    expect((await answer('When did Tom Baker start at Globex?'))[0]).toMatchObject({ answer: 'March 2024' });
    // A month the note gives without its year is answered as that month, not as its 1st.
    expect((await answer('When did Kofi Mensah join Brightline?'))[0]).toMatchObject({ answer: 'September 2026' });
  });

  it('superseded facts answer only questions about the past, and lead when the question asks for the earlier state', async () => {
    expect((await answer('Which company does Tom Baker work for?')).map((f) => f.answer)).toEqual(['Globex']);
    const earlier = await answer('Which company did Tom Baker work for before?');
    expect(earlier[0]).toMatchObject({ answer: 'Hooli', validTo: '2024-03-01', primary: true });
    expect(earlier.find((f) => f.answer === 'Globex')?.primary).toBe(false);
  });

  it('no named entity, no relation, or no fact: no answer', async () => {
    expect(await answer('Who is the CFO of Initech?')).toEqual([]);
    expect(await answer('What did Sarah Chen say about lunch?')).toEqual([]);
    expect(await answer('?')).toEqual([]);
  });

  it('validity is read as of now: a move still to come leaves the current fact current, and answers only "when"', async () => {
    const ana = entity('e20', 'Ana Silva', 'person');
    const lisbon = entity('e21', 'Lisbon', 'location');
    const oslo = entity('e22', 'Oslo', 'location');
    const moveOn = Date.UTC(2027, 0, 1);
    const facts = [
      fact('f20', ana, 'LIVES_IN', lisbon, { confidence: 0.85, validTo: moveOn, supersededBy: 'f21' }),
      fact('f21', ana, 'LIVES_IN', oslo, { confidence: 0.8, validFrom: moveOn, source: { documentId: 'mem_f21', excerpt: 'Ana Silva is moving to Oslo in January 2027.' } }),
    ];
    const moving: FactLookup = {
      async entitiesNamed(_account, names) {
        return names.some((name) => name.toLowerCase() === 'ana silva') ? [{ entity: ana, name: 'Ana Silva' }] : [];
      },
      async factsAbout() {
        return facts;
      },
      async entitiesByIds(_account, ids) {
        return [ana, lisbon, oslo].filter((e) => ids.includes(e.id));
      },
    };
    const ask = (question: string, now: number) => findFactAnswers(moving, 'acct', question, analyseQuestion(question), now);
    const before = Date.UTC(2026, 10, 29);
    expect((await ask('Where does Ana Silva live?', before)).map((f) => f.answer)).toEqual(['Lisbon']);
    expect((await ask('When does Ana Silva move to Oslo?', before))[0]).toMatchObject({ answer: 'January 2027' });
    // Once the day has come, the later fact is the current one and the earlier one answers only the past.
    const after = Date.UTC(2027, 1, 1);
    expect((await ask('Where does Ana Silva live?', after)).map((f) => f.answer)).toEqual(['Oslo']);
    expect((await ask('Where did Ana Silva live before?', after))[0]).toMatchObject({ answer: 'Lisbon' });
  });

  it('"next year" and "last month" answer "when" with the year or the month, not their first day', async () => {
    const tomMoves = (excerpt: string, validFrom: number): FactLookup => ({
      ...lookup,
      async entitiesNamed(_account, names) {
        return names.some((name) => name.toLowerCase() === 'tom baker') ? [{ entity: tom, name: 'Tom Baker' }] : [];
      },
      async factsAbout() {
        return [fact('f30', tom, 'WORKS_AT', globex, { confidence: 0.85, validFrom, source: { documentId: 'mem_f30', excerpt } })];
      },
    });
    const when = async (excerpt: string, validFrom: number) =>
      (await findFactAnswers(tomMoves(excerpt, validFrom), 'acct', 'When did Tom Baker join Globex?', analyseQuestion('When did Tom Baker join Globex?')))[0]?.answer;
    expect(await when('Tom Baker joined Globex last year.', Date.UTC(2025, 0, 1))).toBe('2025');
    expect(await when('Tom Baker joined Globex last month.', Date.UTC(2026, 9, 1))).toBe('October 2026');
    // A first of January the note gives as a day stays a day.
    expect(await when('Tom Baker joined Globex on 1 January 2025.', Date.UTC(2025, 0, 1))).toBe('1 January 2025');
  });

  it('a given name alone that answers nothing is the one person whose full name starts with it', async () => {
    const lena = entity('e8', 'Lena', 'person');
    const lenaPark = entity('e9', 'Lena Park', 'person');
    const oceanic = entity('e10', 'Oceanic Labs', 'company');
    const tomLee = entity('e11', 'Tom Lee', 'person');
    const people = [sarah, tom, kofi, lena, lenaPark, tomLee];
    const facts = [...FACTS, fact('f9', lenaPark, 'WORKS_AT', oceanic, { confidence: 0.8 })];
    const withGivenNames: FactLookup = {
      ...lookup,
      async entitiesNamed(account, names) {
        return [...(await lookup.entitiesNamed(account, names)), ...(names.some((name) => name.toLowerCase() === 'lena') ? [{ entity: lena, name: 'Lena' }] : [])];
      },
      async factsAbout(_account, ids) {
        return facts.filter((f) => ids.includes(f.subjectId) || (f.objectId !== null && ids.includes(f.objectId)));
      },
      async entitiesByIds(_account, ids) {
        return [...ENTITIES, lena, lenaPark, oceanic, tomLee].filter((e) => ids.includes(e.id));
      },
      async peopleByGivenName(_account, name) {
        return people.filter((person) => person.name.split(' ').length > 1 && person.name.split(' ')[0]?.toLowerCase() === name.toLowerCase());
      },
    };
    const ask = (question: string) => findFactAnswers(withGivenNames, 'acct', question, analyseQuestion(question));
    // "Lena" is a person of her own with no such fact; Lena Park is the one Lena with a full name.
    expect(await ask('Where does Lena work?')).toMatchObject([{ answer: 'Oceanic Labs', sourceId: 'mem_f9' }]);
    // Two people called Tom by their full names: no guess.
    expect(await ask('Where does Tom work?')).toEqual([]);
    // Without the lookup, as before.
    expect(await findFactAnswers({ ...withGivenNames, peopleByGivenName: undefined }, 'acct', 'Where does Lena work?', analyseQuestion('Where does Lena work?'))).toEqual([]);
  });

  it('a failing knowledge store fails the lookup (the ask reports it, not a wrong answer)', async () => {
    const broken: FactLookup = { ...lookup, factsAbout: async () => Promise.reject(new Error('store down')) };
    await expect(findFactAnswers(broken, 'acct', 'Who is the CFO of Acme Corp?', analyseQuestion('Who is the CFO of Acme Corp?'))).rejects.toThrow('store down');
  });
});

describe('confidence calibration', () => {
  const calibration = { facts: [[0.7, 0.6], [0.9, 0.95]] as [number, number][], passages: [] as [number, number][] };

  it('maps raw through the fitted knots, flat beyond them, and keeps the order', () => {
    expect(answerConfidence('facts', 0.5, calibration)).toBe(0.6);
    expect(answerConfidence('facts', 0.8, calibration)).toBe(0.78);
    expect(answerConfidence('facts', 1, calibration)).toBe(0.95);
    const values = [0, 0.3, 0.7, 0.75, 0.85, 0.9, 1].map((raw) => answerConfidence('facts', raw, calibration));
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it('without knots for a basis, the raw measure clamped to 0-1', () => {
    expect(answerConfidence('passages', 0.456, calibration)).toBe(0.46);
    expect(answerConfidence('passages', 7, calibration)).toBe(1);
    expect(answerConfidence('passages', -1, calibration)).toBe(0);
  });
});
