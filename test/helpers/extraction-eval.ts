import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { core } from '../../src/core/knowledge/names.js';
import { ENTITY_TYPES, type EntityType, type Extraction, type Extractor } from '../../src/providers/spec.js';

/**
 * Scoring of an extractor against the labelled notes in test/fixtures/extraction-eval.json, shared by the
 * floor test (test/unit/extraction-eval.test.ts) and the benchmark (bench/extraction.ts).
 */

const labelledEntity = z.object({ name: z.string(), type: z.enum(ENTITY_TYPES), aliases: z.array(z.string()).optional() });
const labelledFact = z.object({ subject: z.string(), predicate: z.string(), object: z.string() });
const evalSetSchema = z.object({
  referenceDate: z.string(),
  notes: z.array(
    z.object({ id: z.string(), kind: z.string(), text: z.string(), entities: z.array(labelledEntity), facts: z.array(labelledFact) }),
  ),
});
export type EvalSet = z.infer<typeof evalSetSchema>;
export type EvalNote = EvalSet['notes'][number];

export function loadEvalSet(): EvalSet {
  const path = join(import.meta.dirname, '..', 'fixtures', 'extraction-eval.json');
  return evalSetSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export interface Score {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

function score(tp: number, fp: number, fn: number): Score {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { tp, fp, fn, precision: round(precision), recall: round(recall), f1: round(f1) };
}

export interface EvalReport {
  notes: number;
  entities: Record<EntityType, Score>;
  facts: Score;
  /** Precision of facts at each confidence the extractor gave (calibration). */
  calibration: { confidence: number; facts: number; precision: number }[];
  timing: { meanMs: number; p50Ms: number; p95Ms: number; maxMs: number; firstMs: number };
  mistakes: { note: string; kind: 'entity-fp' | 'entity-fn' | 'fact-fp' | 'fact-fn'; detail: string }[];
}

const cores = (names: readonly string[]) => new Set(names.map((name) => core(name)).filter(Boolean));
const overlaps = (a: Set<string>, b: Set<string>) => [...a].some((value) => b.has(value));
const numbers = (text: string): string[] => [...(text.replace(/,/g, '').match(/\d+(?:\.\d+)?/g) ?? [])];

export async function evaluate(extractor: Extractor, set: EvalSet = loadEvalSet()): Promise<EvalReport> {
  const referenceTime = Date.parse(set.referenceDate);
  const counts = Object.fromEntries(ENTITY_TYPES.map((type) => [type, { tp: 0, fp: 0, fn: 0 }])) as Record<EntityType, { tp: number; fp: number; fn: number }>;
  const facts = { tp: 0, fp: 0, fn: 0 };
  const buckets = new Map<number, { facts: number; correct: number }>();
  const times: number[] = [];
  const mistakes: EvalReport['mistakes'] = [];

  for (const note of set.notes) {
    const started = performance.now();
    const extraction: Extraction = await extractor.extract({ text: note.text, referenceTime });
    times.push(performance.now() - started);

    // Entities: a prediction matches a label when any of their names agree (normalised), per type.
    const expected = note.entities.map((entity) => ({ ...entity, cores: cores([entity.name, ...(entity.aliases ?? [])]) }));
    const predicted = extraction.entities.map((entity) => ({ ...entity, cores: cores([entity.name, ...entity.aliases]) }));
    const matchedExpected = new Set<number>();
    predicted.forEach((entity) => {
      const index = expected.findIndex((label, i) => !matchedExpected.has(i) && label.type === entity.type && overlaps(label.cores, entity.cores));
      if (index >= 0) {
        matchedExpected.add(index);
        counts[entity.type].tp++;
      } else {
        counts[entity.type].fp++;
        mistakes.push({ note: note.id, kind: 'entity-fp', detail: `${entity.name} (${entity.type})` });
      }
    });
    expected.forEach((label, index) => {
      if (matchedExpected.has(index)) return;
      counts[label.type].fn++;
      mistakes.push({ note: note.id, kind: 'entity-fn', detail: `${label.name} (${label.type})` });
    });

    // Facts: subject and object by any name of the labelled entity; literal objects by their numbers.
    const namesOf = (name: string) => {
      const label = expected.find((entity) => overlaps(entity.cores, cores([name])));
      return label ? label.cores : cores([name]);
    };
    const sameObject = (predictedObject: string, labelled: string) => {
      if (overlaps(namesOf(labelled), cores([predictedObject]))) return true;
      if (/^\d{4}-\d{2}-\d{2}$/.test(labelled)) return predictedObject.startsWith(labelled);
      const wanted = numbers(labelled);
      const got = numbers(predictedObject);
      return wanted.length > 0 && wanted.every((value) => got.includes(value));
    };
    const matchedFacts = new Set<number>();
    for (const fact of extraction.facts) {
      const index = note.facts.findIndex(
        (label) => label.predicate === fact.predicate && overlaps(namesOf(label.subject), cores([fact.subject])) && sameObject(fact.object, label.object),
      );
      const bucket = buckets.get(fact.confidence) ?? { facts: 0, correct: 0 };
      bucket.facts++;
      if (index >= 0) {
        facts.tp++;
        bucket.correct++;
        matchedFacts.add(index);
      } else {
        facts.fp++;
        mistakes.push({ note: note.id, kind: 'fact-fp', detail: `${fact.subject} ${fact.predicate} ${fact.object} (${fact.confidence})` });
      }
      buckets.set(fact.confidence, bucket);
    }
    note.facts.forEach((label, index) => {
      if (matchedFacts.has(index)) return;
      facts.fn++;
      mistakes.push({ note: note.id, kind: 'fact-fn', detail: `${label.subject} ${label.predicate} ${label.object}` });
    });
  }

  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    notes: set.notes.length,
    entities: Object.fromEntries(ENTITY_TYPES.map((type) => [type, score(counts[type].tp, counts[type].fp, counts[type].fn)])) as Record<EntityType, Score>,
    facts: score(facts.tp, facts.fp, facts.fn),
    calibration: [...buckets.entries()]
      .sort(([a], [b]) => b - a)
      .map(([confidence, bucket]) => ({ confidence, facts: bucket.facts, precision: Math.round((bucket.correct / bucket.facts) * 1000) / 1000 })),
    timing: {
      // The first note pays for loading the NLP libraries; the others are the steady state.
      firstMs: round(times[0] ?? 0),
      meanMs: round(times.slice(1).reduce((sum, time) => sum + time, 0) / Math.max(1, times.length - 1)),
      p50Ms: round(at(0.5)),
      p95Ms: round(at(0.95)),
      maxMs: round(sorted[sorted.length - 1] ?? 0),
    },
    mistakes,
  };
}
