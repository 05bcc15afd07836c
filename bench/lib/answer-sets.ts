import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from './daemon.js';
import { SHARED_DIR } from './scorers.js';

/**
 * Question sets for the answerers, as folds: a fold is one conversation (LoCoMo) or one group of notes (the
 * project's own set), with the notes to save and the questions to ask in its space. Category 5 questions
 * are unanswerable: the answer should abstain.
 */

export interface AnswerNote {
  readonly content: string;
  readonly author?: string;
  readonly context?: string;
  readonly metadata?: Record<string, unknown>;
  readonly title?: string;
}

export interface AnswerQuestion {
  readonly question: string;
  readonly gold: string;
  /** LoCoMo's: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (unanswerable). */
  readonly category: number;
}

export interface AnswerFold {
  readonly id: string;
  readonly notes: readonly AnswerNote[];
  readonly questions: readonly AnswerQuestion[];
}

export const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

export const LOCOMO_FILE = join(SHARED_DIR, 'data', 'locomo-dev.json');
export const OWN_SET_FILE = join(REPO_ROOT, 'bench', 'data', 'everyday-notes.json');
/**
 * The project's own sets of everyday notes, each with its questions: the first, and a second written blind
 * (its author read none of the answerer's code, its figures nor the first set) after rules had been written
 * from the first set's misses, so that the second says how the rules carry to notes nobody tuned on.
 */
export const OWN_SETS = [
  { name: 'own', file: OWN_SET_FILE },
  { name: 'own2', file: join(REPO_ROOT, 'bench', 'data', 'everyday-notes-2.json') },
] as const;

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const Qa = z.looseObject({ question: z.string(), answer: z.union([z.string(), z.number()]).optional(), category: z.number().int() });
const Sample = z.looseObject({ sample_id: z.string(), conversation: z.record(z.string(), z.unknown()), qa: z.array(Qa) });

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
export function parseLocomoDate(text: string): number | undefined {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) return undefined;
  const month = MONTHS.indexOf((match[5] ?? '').toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(match[1]) % 12;
  if ((match[3] ?? '').toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2]));
}

/**
 * LoCoMo as folds, one per conversation, in the memory layout of bench/retrieval-dialog.ts: one memory per
 * turn, its speaker as author, the turn before as context, the session's day as a " [8 May, 2023]" suffix and
 * metadata.date. Category 5 questions have no `answer` (their gold is empty: any answer is wrong).
 */
export function locomoFolds(file = LOCOMO_FILE, limit?: number): AnswerFold[] {
  const samples = z.array(Sample).parse(JSON.parse(readFileSync(file, 'utf8'))).slice(0, limit);
  return samples.map((sample) => ({
    id: sample.sample_id,
    notes: Object.keys(sample.conversation)
      .filter((key) => /^session_\d+$/.test(key) && Array.isArray(sample.conversation[key]))
      .flatMap((key) => {
        const dateText = String(sample.conversation[`${key}_date_time`] ?? '');
        const date = parseLocomoDate(dateText);
        const day = dateText.replace(/^.*\bon\s+/, '');
        const turns = z.array(Turn).parse(sample.conversation[key]);
        return turns.map((turn, index) => ({
          content: `${turn.text}${day ? ` [${day}]` : ''}`,
          author: turn.speaker,
          ...(index > 0 ? { context: `${turns[index - 1]?.speaker}: ${turns[index - 1]?.text}` } : {}),
          metadata: { dia_id: turn.dia_id, session: Number(key.slice('session_'.length)), ...(date !== undefined ? { date: new Date(date).toISOString() } : {}) },
        }));
      }),
    questions: sample.qa
      .filter((qa) => qa.category >= 1 && qa.category <= 5 && (qa.category === 5 || qa.answer !== undefined))
      .map((qa) => ({ question: qa.question, gold: qa.category === 5 ? '' : String(qa.answer), category: qa.category })),
  }));
}

const OwnSet = z.object({
  folds: z.array(
    z.object({
      id: z.string(),
      notes: z.array(z.object({ content: z.string(), title: z.string().optional(), date: z.string().optional() })),
      questions: z.array(z.object({ question: z.string(), answer: z.string(), category: z.number().int().min(1).max(5) })),
    }),
  ),
});

/** One of the project's own sets (OWN_SETS): notes people keep, questions about them. */
export function ownFolds(file = OWN_SET_FILE): AnswerFold[] {
  return OwnSet.parse(JSON.parse(readFileSync(file, 'utf8'))).folds.map((fold) => ({
    id: fold.id,
    notes: fold.notes.map((note) => ({ content: note.content, ...(note.title ? { title: note.title } : {}), ...(note.date ? { metadata: { date: note.date } } : {}) })),
    questions: fold.questions.map((q) => ({ question: q.question, gold: q.category === 5 ? '' : q.answer, category: q.category })),
  }));
}
