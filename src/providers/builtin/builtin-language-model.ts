import { calibrate, scoringFor } from '../../core/scoring.js';
import {
  contentWords,
  countTokens,
  findExplicitDate,
  findRelativeDate,
  formatDay,
  hasDate,
  isStopword,
  properNouns,
  resolveRelativeDate,
  sentences,
} from '../../core/answers/text.js';
import { embedMany } from '../embed-many.js';
import type { AnswerChunk, AnswerRequest, AnswerSource, AnswerTier, EmbeddingModel, LanguageModel } from '../spec.js';

export const BUILTIN_ANSWER_MODEL = 'builtin/extractive';

type QuestionKind = 'when' | 'who' | 'where' | 'quantity' | 'other';

/**
 * Per tier: sentences in the answer, sentences of multi-sentence memories embedded to rank them, and whether a
 * typed question (when, who, where, how many) is answered by the span alone or by the span and its sentence.
 */
const TIERS: Record<AnswerTier, { readonly sentences: number; readonly embed: number; readonly spanOnly: boolean }> = {
  fast: { sentences: 1, embed: 0, spanOnly: true },
  default: { sentences: 1, embed: 4, spanOnly: true },
  smart: { sentences: 2, embed: 16, spanOnly: false },
};

const NUMBER_WORDS = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|once|twice|a couple|a few|several';
const QUANTITY = new RegExp(`(?:\\b(?:${NUMBER_WORDS})\\b|\\$?\\b\\d+(?:[.,]\\d+)*%?)(?:\\s+(?:a|per)\\s+\\w+|(?:\\s+[\\p{L}-]+){0,2})`, 'iu');

/** Questions that ask two things ("When ... and what about?") are answered with the whole sentence. */
function isCompound(question: string): boolean {
  return (question.toLowerCase().match(/\b(?:when|who|whom|where|what|which|why|how)\b/g) ?? []).length > 1;
}

/**
 * The phrase that answers a typed question, taken from the best sentence as written: names for who and where
 * (those the question does not already name), a number with its unit for how many/much/long. Undefined when
 * the sentence holds none: the sentence itself is the answer then.
 */
function answerSpan(kind: QuestionKind, sentence: string, questionNames: ReadonlySet<string>): string | undefined {
  if (kind === 'who' || kind === 'where') {
    const asked = (name: string) => questionNames.has(name.toLowerCase()) || [...questionNames].some((q) => q.includes(name.toLowerCase()));
    const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (kind === 'where') {
      // Only a name after a place word answers "where" ("from Globex" is an origin, often a company).
      const placed = properNouns(sentence).filter(
        (name) => !asked(name) && new RegExp(`\\b(?:in|at|to|near|around|visit(?:s|ed|ing)?)\\s+(?:the\\s+)?${escape(name)}`, 'u').test(sentence),
      );
      return placed.length > 0 ? placed.slice(0, 2).join(', ') : undefined;
    }
    // "Who" asks for the subject: the first name of the sentence (a leading name counts here), or the speaker,
    // with names joined to it by "and" ("Caroline and Melanie").
    const label = speakerLabel(sentence);
    const text = label ? sentence.slice(sentence.indexOf(':') + 1) : sentence;
    const names = properNouns(`and ${text}`)
      .filter((name) => !asked(name))
      .map((name) => ({ name, at: text.indexOf(name) }))
      .filter((entry) => entry.at >= 0)
      .sort((x, y) => x.at - y.at);
    const first = label && !asked(label) ? { name: label, at: -1 } : names[0];
    if (!first) return undefined;
    const picked = [first.name];
    for (const next of names) {
      if (next.at <= first.at || picked.includes(next.name)) continue;
      const between = text.slice(first.at + first.name.length, next.at);
      if (first.at >= 0 && /^\s*(?:,|and|&)\s*$/u.test(between)) picked.push(next.name);
      break;
    }
    return picked.join(' and ');
  }
  if (kind === 'quantity') {
    const text = sentence.replace(/^[^:]{1,40}:\s/u, '');
    const match = QUANTITY.exec(text)?.[0];
    if (!match) return undefined;
    const parts = match.trim().split(/\s+/);
    // "45 minutes at" -> "45 minutes": a unit never ends in a stopword.
    while (parts.length > 1 && isStopword(parts[parts.length - 1] ?? '')) parts.pop();
    return parts.join(' ');
  }
  return undefined;
}
/** A further sentence joins the answer only when it scores this close to the best one. */
const KEEP_RATIO = 0.85;

interface Candidate {
  readonly source: AnswerSource;
  readonly sourceIndex: number;
  /** The sentence as shown: a speaker label ("Caroline: ") repeated for later sentences of a turn. */
  readonly text: string;
  readonly lexical: number;
  semantic: number;
  readonly bonus: number;
}

export function questionKind(question: string): QuestionKind {
  const q = question.trim().toLowerCase();
  if (/^(?:when|what (?:date|day|time|year|month)|which (?:year|month|day|date)|how long ago)\b/.test(q) || /\bwhen (?:did|does|do|is|was|will|are|were)\b/.test(q)) {
    return 'when';
  }
  if (/^(?:who|whom|whose)\b/.test(q)) return 'who';
  if (/^where\b/.test(q)) return 'where';
  if (/\bhow (?:many|much|often|long|old)\b/.test(q)) return 'quantity';
  return 'other';
}

/** "Caroline: I went..." -> "Caroline". Conversation turns and chat logs label their speaker this way. */
function speakerLabel(content: string): string | undefined {
  return /^(\p{Lu}[\p{L}'’.-]*(?:\s\p{Lu}[\p{L}'’.-]*){0,2}):\s/u.exec(content.trim())?.[1];
}

/** Sentences of a memory, bracketed date stamps ("[8 May, 2023]") left out: they are the memory's date. */
function memorySentences(content: string): string[] {
  const label = speakerLabel(content);
  return sentences(content)
    // Clauses set off by a dash or a semicolon are answers of their own: "I ran a race – it was great."
    .flatMap((sentence) => sentence.split(/\s+[–—]\s+|;\s+/))
    .filter((sentence) => !/^\[[^\]]*\]$/.test(sentence) && /[\p{L}\p{N}]/u.test(sentence))
    .map((sentence, index) => (label && index > 0 ? `${label}: ${sentence}` : sentence).replace(/\s*\[[^\]]*\d{4}[^\]]*\]\s*$/u, ''));
}

function kindBonus(kind: QuestionKind, sentence: string, questionNames: ReadonlySet<string>): number {
  switch (kind) {
    case 'when':
      return hasDate(sentence) ? 0.15 : 0;
    case 'who':
    case 'where':
      return properNouns(sentence).some((name) => !questionNames.has(name.toLowerCase())) ? 0.08 : 0;
    case 'quantity':
      return /\b\d+(?:[.,]\d+)?\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|once)\b/i.test(sentence) ? 0.1 : 0;
    case 'other':
      return 0;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/**
 * The built-in, offline answerer. Extractive: it never writes text of its own. It scores every sentence
 * of the retrieved memories against the question (lexical overlap weighted by how rare each word is among
 * the memories, the embedder's similarity, and a bonus for the kind of thing asked: a date for "when", a
 * name for "who"), then answers with the best one or few, whole, with names and dates as written. A typed
 * question gets the phrase that answers it: for "when" the date (an explicit one from the sentence, a relative
 * one such as "yesterday" resolved against the memory's date, else the memory's date), for "who" and "where"
 * the names the question does not already hold, for "how many" the number and its unit. The fast and default
 * tiers answer with that phrase alone (the cited memories show the evidence), the smart tier with the phrase
 * and its sentence; a question that asks two things ("when ... and what about?") gets the sentence too.
 */
export class BuiltinLanguageModel implements LanguageModel {
  readonly provider = 'builtin';

  constructor(private readonly embedder: EmbeddingModel) {}

  modelFor(): string {
    return BUILTIN_ANSWER_MODEL;
  }

  async close(): Promise<void> {}

  async *answer(request: AnswerRequest): AsyncIterable<AnswerChunk> {
    const { text, cited, support, promptTokens, basis } = await this.extract(request);
    // Word by word, as a generating model would stream it: the client shows the answer as it arrives.
    for (const piece of text.match(/\s*\S+/g) ?? []) yield { type: 'delta', text: piece };
    yield { type: 'finish', usage: { promptTokens, completionTokens: 0 }, model: BUILTIN_ANSWER_MODEL, cited, support, basis };
  }

  /** The whole answer at once (tests and the turbo path use it directly). */
  async extract(request: AnswerRequest): Promise<{ text: string; cited: string[]; support: number; promptTokens: number; basis: 'facts' | 'passages' }> {
    const promptTokens = countTokens(request.question) + request.sources.reduce((sum, source) => sum + countTokens(source.content), 0);
    const fromFacts = factAnswer(request);
    if (fromFacts) return { ...fromFacts, promptTokens, basis: 'facts' };
    return { ...(await this.fromPassages(request)), promptTokens, basis: 'passages' };
  }

  /** The passage answer: the best sentence, or the typed phrase of it that answers. */
  private async fromPassages(request: AnswerRequest): Promise<{ text: string; cited: string[]; support: number }> {
    const tier = TIERS[request.tier];
    const kind = questionKind(request.question);
    const questionWords = [...new Set(contentWords(request.question))];
    const questionNames = new Set(properNouns(request.question).map((name) => name.toLowerCase()));

    // Rarer words among the retrieved memories say more about which sentence answers (idf over the sources).
    const documents = request.sources.map((source) => new Set(contentWords(source.content)));
    const weight = new Map(
      questionWords.map((word) => {
        const df = documents.filter((document) => document.has(word)).length;
        return [word, Math.log(1 + (documents.length + 1) / (df + 0.5))] as const;
      }),
    );
    const totalWeight = [...weight.values()].reduce((sum, value) => sum + value, 0);

    const candidates: Candidate[] = [];
    const multi: Candidate[] = [];
    request.sources.forEach((source, sourceIndex) => {
      const list = memorySentences(source.content);
      for (const text of list) {
        const present = new Set(contentWords(text));
        const matched = questionWords.reduce((sum, word) => sum + (present.has(word) ? (weight.get(word) ?? 0) : 0), 0);
        const candidate: Candidate = {
          source,
          sourceIndex,
          text,
          lexical: totalWeight > 0 ? matched / totalWeight : 0,
          // A one-sentence memory's relevance is already that sentence's match to the question.
          semantic: source.relevance,
          bonus: kindBonus(kind, text, questionNames),
        };
        candidates.push(candidate);
        if (list.length > 1) multi.push(candidate);
      }
    });
    if (candidates.length === 0) return { text: '', cited: [], support: 0 };

    // In longer memories the memory's relevance says little about each sentence: embed the most promising.
    if (tier.embed > 0 && multi.length > 0) {
      const chosen = [...multi].sort((a, b) => b.lexical - a.lexical || a.sourceIndex - b.sourceIndex).slice(0, tier.embed);
      const [questionVector, ...vectors] = request.questionVector
        ? [request.questionVector, ...(await embedMany(this.embedder, chosen.map((c) => c.text), { signal: request.signal }))]
        : await embedMany(this.embedder, [request.question, ...chosen.map((c) => c.text)], { signal: request.signal });
      const calibration = scoringFor(this.embedder.modelId).semantic;
      chosen.forEach((candidate, index) => {
        const vector = vectors[index];
        if (vector && questionVector) {
          // Never far above the memory's own relevance: a sentence is not more relevant than its memory found.
          candidate.semantic = Math.min(calibrate(dot(vector, questionVector), calibration), candidate.source.relevance + 0.1);
        }
      });
    }

    const score = (c: Candidate) => 0.5 * c.lexical + 0.5 * c.semantic + c.bonus - 0.01 * c.sourceIndex;
    const ranked = [...candidates].sort((a, b) => score(b) - score(a));
    const best = ranked[0] as Candidate;
    const picked = [best];
    for (const candidate of ranked.slice(1)) {
      if (picked.length >= tier.sentences) break;
      if (score(candidate) >= KEEP_RATIO * score(best) && !picked.some((p) => p.text === candidate.text)) picked.push(candidate);
    }

    let text = picked.map((candidate) => candidate.text).join(' ');
    const concise = tier.spanOnly && !isCompound(request.question);
    if (kind === 'when') {
      const explicit = findExplicitDate(best.text);
      const relative = findRelativeDate(best.text);
      const lead =
        (relative ? resolveRelativeDate(relative, best.source.date) : undefined) ?? explicit ?? formatDay(best.source.date);
      const date = `${lead.charAt(0).toUpperCase()}${lead.slice(1)}`;
      text = concise ? date : `${date} — ${text}`;
    } else {
      const span = answerSpan(kind, best.text, questionNames);
      if (span) text = concise ? span : `${span} — ${text}`;
    }
    const cited = [...new Set(picked.map((candidate) => candidate.source.id))];
    const support = Math.max(0, Math.min(1, 0.5 * best.lexical + 0.5 * best.semantic + best.bonus));
    return { text, cited, support };
  }
}

/**
 * The answer from the knowledge graph, when a fact matches: the answers of the leading facts (several when
 * the question's relation holds for several, "Sarah Chen and David Kim"), citing the memories that state
 * them. The smart tier (and a question asking two things) adds the statements. Support is the fact's
 * confidence (the least of the leading facts').
 */
function factAnswer(request: AnswerRequest): { text: string; cited: string[]; support: number } | undefined {
  const leading = (request.facts ?? []).filter((fact) => fact.primary);
  if (leading.length === 0) return undefined;
  const answers = [...new Set(leading.map((fact) => fact.answer))].slice(0, 3);
  const phrase = answers.length > 1 ? `${answers.slice(0, -1).join(', ')} and ${answers[answers.length - 1]}` : (answers[0] ?? '');
  const concise = TIERS[request.tier].spanOnly && !isCompound(request.question);
  const statements = [...new Set(leading.map((fact) => fact.statement))].join('; ');
  const text = concise || !statements ? phrase : `${phrase} — ${statements}.`;
  const cited = [...new Set(leading.map((fact) => fact.sourceId))];
  return { text, cited, support: Math.min(...leading.map((fact) => fact.confidence)) };
}
