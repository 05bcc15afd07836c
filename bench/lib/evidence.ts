import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { AnswerSource } from '../../src/providers/spec.js';
import type { AskedQuestion } from './answer-eval.js';
import { LOCOMO_FILE, locomoFolds } from './answer-sets.js';

/**
 * LoCoMo's evidence labels joined to the memories retrieval gave the answerer: each QA names the turns
 * (dia_ids, "D1:3") that state its answer, and each memory the bench saved is one turn. The saved requests
 * carry the memories' text, not their metadata, so a source is matched to its turn by what the bench saved
 * ("Speaker: text [day]", and the turn before as context when one text was said twice).
 */

const Qa = z.looseObject({ question: z.string(), category: z.number().int(), evidence: z.array(z.string()).optional() });
const Sample = z.looseObject({ sample_id: z.string(), qa: z.array(Qa) });

export interface Evidence {
  /** The dia_ids of a question's evidence turns (empty when LoCoMo gives none). */
  turnsOf(entry: Pick<AskedQuestion, 'fold' | 'question' | 'category'>): ReadonlySet<string>;
  /** The turn a retrieved memory was saved from, undefined when it is no turn of the fold. */
  turnOf(fold: string, source: Pick<AnswerSource, 'content' | 'context'>): string | undefined;
}

export function locomoEvidence(file = LOCOMO_FILE): Evidence {
  const samples = z.array(Sample).parse(JSON.parse(readFileSync(file, 'utf8')));
  const byQuestion = new Map<string, Set<string>>();
  for (const sample of samples) {
    for (const qa of sample.qa) {
      const key = `${sample.sample_id}\u0000${qa.category}\u0000${qa.question}`;
      const turns = byQuestion.get(key) ?? new Set<string>();
      // A few dia_ids are written "D1:3; D1:5" or with spaces: one turn each.
      for (const id of qa.evidence ?? []) for (const part of id.split(/[;,\s]+/)) if (/^D\d+:\d+$/.test(part)) turns.add(part);
      byQuestion.set(key, turns);
    }
  }
  const byText = new Map<string, { turn: string; context: string | undefined }[]>();
  for (const fold of locomoFolds(file)) {
    for (const note of fold.notes) {
      const turn = note.metadata?.dia_id;
      if (typeof turn !== 'string') continue;
      const key = `${fold.id}\u0000${note.author ? `${note.author}: ` : ''}${note.content}`;
      byText.set(key, [...(byText.get(key) ?? []), { turn, context: note.context }]);
    }
  }
  return {
    turnsOf: (entry) => byQuestion.get(`${entry.fold}\u0000${entry.category}\u0000${entry.question}`) ?? new Set(),
    turnOf: (fold, source) => {
      const found = byText.get(`${fold}\u0000${source.content}`) ?? [];
      return (found.length > 1 ? found.find((entry) => entry.context === source.context) : found[0])?.turn;
    },
  };
}
