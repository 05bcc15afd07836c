import { describe, expect, it } from 'vitest';
import { BuiltinExtractor } from '../../src/providers/builtin/builtin-extractor.js';
import { evaluate, loadEvalSet } from '../helpers/extraction-eval.js';

/**
 * Floors on the built-in extractor's quality over the labelled notes (test/fixtures/extraction-eval.json);
 * bench/extraction.ts prints the figures. The floors sit a little under the measured values, so a change
 * that makes extraction worse fails here.
 */
describe('built-in extractor on the labelled evaluation set', () => {
  it('has at least 40 realistic notes of every kind', () => {
    const set = loadEvalSet();
    expect(set.notes.length).toBeGreaterThanOrEqual(40);
    expect(new Set(set.notes.map((note) => note.kind))).toEqual(new Set(['meeting', 'email', 'journal', 'project-update']));
  });

  it('keeps precision and recall per entity type and fact precision above their floors', async () => {
    const report = await evaluate(new BuiltinExtractor());
    const floors = {
      person: { precision: 0.9, recall: 0.85, f1: 0.85 },
      company: { precision: 0.9, recall: 0.8, f1: 0.85 },
      location: { precision: 0.9, recall: 0.85, f1: 0.85 },
      event: { precision: 0.8, recall: 0.8, f1: 0.8 },
      date: { precision: 0.9, recall: 0.9, f1: 0.9 },
      product: { precision: 0.5, recall: 0.4, f1: 0.45 },
    } as const;
    for (const [type, floor] of Object.entries(floors)) {
      const score = report.entities[type as keyof typeof floors];
      expect(score.precision, `${type} precision`).toBeGreaterThanOrEqual(floor.precision);
      expect(score.recall, `${type} recall`).toBeGreaterThanOrEqual(floor.recall);
      expect(score.f1, `${type} F1`).toBeGreaterThanOrEqual(floor.f1);
    }
    expect(report.facts.precision, 'fact precision').toBeGreaterThanOrEqual(0.9);
    expect(report.facts.recall, 'fact recall').toBeGreaterThanOrEqual(0.75);
    // A confidence filter means something: the most confident facts are at least as precise as all of them.
    const confident = report.calibration.filter((bucket) => bucket.confidence >= 0.85);
    const precise = confident.reduce((sum, bucket) => sum + bucket.precision * bucket.facts, 0) / confident.reduce((sum, bucket) => sum + bucket.facts, 0);
    expect(precise).toBeGreaterThanOrEqual(report.facts.precision - 0.05);
  }, 60_000);

  it('finds people whose given name it does not know from what they do and where they are from', async () => {
    const extractor = new BuiltinExtractor();
    const people = async (text: string) =>
      (await extractor.extract({ text, referenceTime: Date.UTC(2026, 0, 5) })).entities.filter((entity) => entity.type === 'person').map((entity) => entity.name);
    // A cue word followed by punctuation still counts ("called.").
    expect(await people('Kofi Mensah called.')).toEqual(['Kofi Mensah']);
    expect(await people('Priya Raman met Zara Okonkwo in Lisbon.')).toEqual(['Priya Raman', 'Zara Okonkwo']);
    expect(await people('Priya Raman from Acme Corp joined the call late.')).toEqual(['Priya Raman']);
    // Single words and places keep needing more than that.
    expect(await people('Flights to Lisbon from Porto were cancelled.')).toEqual([]);
    expect(await people('New York from above looks calm.')).toEqual([]);
  });

  it('a name ending in a place word is someone when it does or undergoes what only people do; a move made to join a company is a job there', async () => {
    const extractor = new BuiltinExtractor();
    const extract = (text: string) => extractor.extract({ text, referenceTime: Date.UTC(2026, 0, 5) });
    const typeOf = async (text: string, name: string) => (await extract(text)).entities.find((entity) => entity.name === name)?.type;
    const worksAt = async (text: string) =>
      (await extract(text)).facts.filter((fact) => fact.predicate === 'WORKS_AT').map((fact) => `${fact.subject} -> ${fact.object}`);
    expect(await typeOf('Lena Park moved from Seattle to Lisbon in March 2024 to join Oceanic Labs as a data engineer.', 'Lena Park')).toBe('person');
    expect(await worksAt('Lena Park moved from Seattle to Lisbon in March 2024 to join Oceanic Labs as a data engineer.')).toEqual(['Lena Park -> Oceanic Labs']);
    expect(await worksAt('Sam Okoro left Google to join Meta last year.')).toEqual(['Sam Okoro -> Meta']);
    expect(await typeOf('Lena Park shared the hiring plan with the team at Globex.', 'Lena Park')).toBe('person');
    expect(await typeOf('Dana Lake said the demo went well.', 'Dana Lake')).toBe('person');
    // ... or undergoes what only people do: approved by someone, met.
    expect(await typeOf('Budget for the beta launch is now 72k, approved by Mina Park.', 'Mina Park')).toBe('person');
    expect(await typeOf('Met Mina Park for coffee on Friday.', 'Mina Park')).toBe('person');
    expect(await typeOf('Mina Park approved the budget for phase 2 of the kiosk rollout.', 'Mina Park')).toBe('person');
    // Where someone moved from one place to another, they live in the second.
    const moved = await extract('Omar Haddad relocated from Cairo to Dubai last spring.');
    expect(moved.facts.filter((fact) => fact.predicate === 'LIVES_IN').map((fact) => fact.object)).toEqual(['Dubai']);
    // Places stay places: nothing they do here is a person's, or the first word is a place word too.
    expect(await typeOf('Victoria Park is lovely in spring.', 'Victoria Park')).toBe('location');
    expect(await typeOf('The meeting moved from Union Square to Bryant Park because of the rain.', 'Bryant Park')).toBe('location');
    expect(await typeOf('We met at Bryant Park after work.', 'Bryant Park')).toBe('location');
    expect(await typeOf('We found a quiet spot called Bryant Park.', 'Bryant Park')).toBe('location');
    // A plan is not a job, and someone else named between is not the one who moved.
    expect(await worksAt('Priya Raman wants to join Notion next year.')).toEqual([]);
    expect(await worksAt('Priya Raman moved to Berlin with Tom Baker to join Zalando.')).not.toContain('Priya Raman -> Zalando');
  });
});
