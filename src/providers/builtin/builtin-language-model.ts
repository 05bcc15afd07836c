import { calibrate, scoringFor } from '../../core/scoring.js';
import {
  contentWords,
  countTokens,
  escapeRegExp,
  findExplicitDate,
  findRelativeDate,
  formatDay,
  hasDate,
  isStopword,
  properNouns,
  resolveMonth,
  resolveRelativeDate,
  resolveWeekday,
  sentences,
  stem,
  termsOf,
  wordKey,
  words,
} from '../../core/answers/text.js';
import { headWords } from '../../core/answers/question.js';
import { asksForNamedThing, CHOICE, isCompound, isListQuestion, isQuestion, NOW_QUESTION, questionKind, questionNamesOf, WHY_QUESTION, withFullNames, WORKS_QUESTION, YES_NO_QUESTION, type QuestionKind } from './question-forms.js';
import { elaborated, gapFill, gapFiller, headPhrase, objectBefore, reasonOf, withoutTimes, type GapFill } from './gap-filler.js';
import { answerSpan, holderOf, speakerLabel, subjectOf, tiePhrase, withoutLabel } from './typed-spans.js';
import { embedMany } from '../embed-many.js';
import type { AnswerChunk, AnswerRequest, AnswerSource, AnswerTier, EmbeddingModel, LanguageModel } from '../spec.js';

export const BUILTIN_ANSWER_MODEL = 'builtin/extractive';

/**
 * The rules of the extractive answerer that were chosen on data: fitted (core/answers/answer-parameters.ts,
 * written by bench/fit-answers.ts with leave-one-conversation-out) and passed in by the composition root.
 */
export interface AnswerRules {
  /** Best-ranked sentences whose typed candidates (names, places, numbers) compete; 1 is the best only. */
  readonly window: number;
  /** Weight of a candidate's closeness to the question's words in its sentence, against sentence scores. */
  readonly proximity: number;
  /** Longest phrase that answers an untyped question ("What did Priya study?"), in words; 0: the sentence. */
  readonly focusWords: number;
  /**
   * Taken off a sentence that is itself a question: in a conversation the line that best matches a question is
   * often the same question asked by someone ("Dan: Which team did you join?"), not its answer.
   */
  readonly questionPenalty: number;
  /**
   * Answer nothing (noResult) when the best sentence is still a question after the penalty: the memories hold
   * the question being asked, not an answer to it.
   */
  readonly abstainOnQuestion: boolean;
  /**
   * Taken off a line that tells nothing beyond the question's own words and names ("Dan: No problem,
   * Priya!", "Tom: Yep, Ana"): such replies rank high on the context they answer, not on what they say.
   * Only lines with a speaker: a note someone saved says what it means in few words ("Mum's birthday is
   * 2 February").
   */
  readonly fillerPenalty: number;
  /**
   * Up to this many memories answer a question that asks for several things ("What desserts has Priya
   * made?", "Which cities have both visited?"): each one's best line (or its focus phrase), joined "X and Y".
   * 1: the best line alone.
   */
  readonly listItems: number;
  /**
   * Added to a line spoken by a person the question names ("What did Priya realise...?" prefers
   * "Priya: ..."): in a conversation the asked person's own turn answers, while the other's turn often
   * repeats the question's words back ("Dan: Great that you're unwinding more").
   */
  readonly speakerWeight: number;
  /**
   * Added to a line in proportion to what it tells beyond the question's words (its content words the
   * question lacks, up to NEWS_WORDS): the line that answers adds the answer, while the lines that only
   * echo the question ("I ran a marathon" for "What did she realise after the marathon?") match it best.
   */
  readonly newsWeight: number;
  /**
   * An untyped question ("What did she realise...?") is answered with its line less the speaker label and
   * the words at either end that only echo the question or carry nothing (stopwords): the answer is what
   * the line adds ("sleep matters more than training"), not the question said back.
   */
  readonly trimEcho: boolean;
  /**
   * An untyped question whose answering line quotes a title ("I loved reading \"The Hobbit\"") is
   * answered with the quoted words: writers quote the names of books, songs and shows.
   */
  readonly quotedTitles: boolean;
  /**
   * Weights of LINE_FEATURES that rank the lines of a question answered by a phrase of its line (all but
   * "when"), fitted by bench/fit-answers.ts as a listwise logit over each question's lines (the answer each
   * line would give, and LoCoMo's evidence turns, are its target); the score of a line is the logistic of
   * weights · features. Absent: the hand-set score of the weights above (questionPenalty, fillerPenalty,
   * speakerWeight, newsWeight). "When" questions keep that score: their answer is the line's date, which the
   * line's words say little about.
   */
  readonly lineWeights?: readonly number[];
  /** A "who" question over a line that names no one is answered by the tie it names ("Maria's aunt"). */
  readonly tieAnswers?: boolean;
  /**
   * A list question is answered with the names and quoted titles its lines hold ("Lisbon, Porto"), comma
   * separated, rather than with the lines' phrases; a line that names nothing gives its phrase.
   */
  readonly listNames?: boolean;
  /**
   * A list question's items are the things each line lists ("pottery, painting and camping" gives three),
   * comma separated, rather than each line's whole phrase (see listedParts).
   */
  readonly listParts?: boolean;
  /**
   * A question asking for a named thing ("What book...?", "Which city...?") is answered with the first title
   * or name, not in the question, of the best lines (up to `window`), rather than the line's phrase.
   */
  readonly namedThings?: boolean;
  /**
   * A list question asking for named things ("Which cities...?", "What are the dogs' names?") takes its items
   * from the best lines that name something (up to `listItems` memories), passing over lines that name
   * nothing, instead of giving those lines' phrases (with listNames).
   */
  readonly namedLists?: boolean;
  /**
   * An untyped question is answered with the words a line says in its gap (gapFiller: "What is Jon working
   * on opening?" over "I'm working on opening a dance studio" gives "a dance studio") when the line says at
   * least this many of the question's words in its order before them; absent or 0: never.
   */
  readonly gapRun?: number;
  /**
   * With gapRun: a "what" question is answered by the first of its best `gapWindow` lines whose words fill
   * its gap, when the best line's do not (its best line may only echo the question: "I love my job!").
   */
  readonly gapWindow?: number;
  /** A "why" question is answered with the reason its line gives ("because it's bright and bold"; reasonOf). */
  readonly reasons?: boolean;
  /**
   * With gapWindow: of those lines, the one that says the longest run of the question's words fills the gap
   * (ties to the better line), not the first that fills it at all.
   */
  readonly gapLongest?: boolean;
  /**
   * With gapWindow: when none of those lines fills the gap, a "what X" question is answered with X as the
   * first of them that says it with modifiers of its own (headPhrase).
   */
  readonly headPhrases?: boolean;
  /**
   * A question that asks whether ("Did Melanie make the bowl?", "Do Jon and Gina both dance?") is answered
   * "Yes" from the line that best says it, "No" when that line opens with a no or denies the asked words
   * (yesNoOf).
   */
  readonly yesNo?: boolean;
  /**
   * With gapWindow: when no line fills the gap, a question that places its verb's object ("What did Joanna
   * make for her friend?") is answered with what one of those lines names before that place (objectBefore).
   */
  readonly objectsBefore?: boolean;
  /** A question's short form of a name ("Mel") read as the one name of the memories it starts (withFullNames). */
  readonly shortNames?: boolean;
  /** With namedThings: the name or title of the line nearest the question's words answers (nearestName). */
  readonly nearestNames?: boolean;
  /** An untyped answer whose head only announces what follows its dash is what follows (elaborated). */
  readonly elaborations?: boolean;
  /** An untyped answer less the times it says ("dinner together last night" -> "dinner together"; withoutTimes). */
  readonly timeless?: boolean;
  /** When to say "I don't know" although passages were found (see AbstentionModel); absent: never. */
  readonly abstention?: AbstentionModel;
}

/**
 * What the line ranker weighs, each in [0, 1], in the order of AnswerRules.lineWeights:
 * - lexical, semantic: the line's match to the question (rarer words weigh more; the embedder's, calibrated);
 * - typed: it holds a phrase of the asked type (a name for who, a number for how many);
 * - question: the line asks rather than tells;
 * - filler: a speaker's line that tells nothing beyond the question's own words;
 * - byAsked: spoken by a person the question names;
 * - news: the share of NEWS_WORDS content words it adds to the question's;
 * - rank: its memory's place among those retrieved (tenths);
 * - quoted: it quotes a phrase (titles of books, songs, shows);
 * - length: its length in words (thirtieths);
 * - newName: it names something the question does not;
 * - lead: it opens its memory (a turn's first sentence often greets or answers the question before it);
 * - reply: its memory replies to a question (its context) that matches the question asked, weighed like
 *   lexical: in a conversation "How long have you been climbing?" is answered by the next turn, whose own
 *   words ("Since 2019!") share none with "How long has Priya been bouldering?";
 * - head: it holds the kind of thing a "what/which" question asks for (core/answers/question.ts headWords:
 *   "course" for "What course did Priya take?");
 * - replyLead: reply, for the first line of its memory only: a reply answers first, then talks on.
 * - relevance: its memory's relevance (search's calibrated score): rank alone says nothing of how close the
 *   memories came;
 * - memoryLexical, contextLexical: lexical for its whole memory and for the whole message it replies to: a
 *   turn's answering line may share no word with the question while its neighbours or the turn before do;
 * - pairs: the share of the question's adjacent content-word pairs ("night shift") it holds in order;
 * - namesHeld: the share of the question's names its memory (speaker, text, context) mentions;
 * - alone: it is its memory's only line.
 */
export const LINE_FEATURES = [
  'lexical', 'semantic', 'typed', 'question', 'filler', 'byAsked', 'news', 'rank', 'quoted', 'length', 'newName', 'lead', 'reply', 'head', 'replyLead',
  'relevance', 'memoryLexical', 'contextLexical', 'pairs', 'namesHeld', 'alone',
] as const;

/**
 * Whether the found passages answer the question at all, as a logistic model over ABSTENTION_SIGNALS: the
 * answerer abstains when bias + weights · signals > 0. Fitted by bench/fit-answers.ts on unanswerable
 * against answerable questions, its bias set so that answerable questions are rarely refused.
 */
export interface AbstentionModel {
  readonly bias: number;
  readonly weights: readonly number[];
}

/**
 * What an answer from passages looks like when the memories do not hold it, each in [0, 1]. The order is
 * that of AbstentionModel.weights.
 * - topRelevance: the best memory's relevance (search's calibrated probability);
 * - leadRelevance: the relevance of the memory the answer comes from;
 * - leadMatch: how much of the question's wording (rarer words weigh more) the answering line holds;
 * - nameMissingLead: share of the names the question gives (people, places) that the answering memory,
 *   its speaker included, does not hold: "What did Dan realise after his marathon?" answered from
 *   Priya's line about her own marathon;
 * - nameMissingAll: share of those names that no found memory holds;
 * - typedMissing: 1 when a who/where/how-many question finds no phrase of that type to answer with;
 * - speakerGap: how much better the best line of anyone matches the question than the best line spoken by
 *   the person it names (0 when it names no speaker): questions that swap the person ("What did Dan
 *   realise after his marathon?" when Priya ran it) find their words in the other person's turns.
 * - relationMissing: share of the question's own words (content words less its names) that no found memory
 *   naming one of its people or things holds (0 when it names none): "What did Priya say about her
 *   violin?" finds Priya's memories, none of them about a violin; the words sit in others' memories.
 * - lexicalGap: speakerGap on the question's words alone, among lines that tell more than the question;
 * - leadByOther: the line answered from is spoken by someone other than the person the question names.
 * - othersOnly: share of the question's own words (less its names) that lines spoken by others hold and no
 *   line spoken by the person it names does (0 when it names no speaker of the found lines).
 */
export const ABSTENTION_SIGNALS = ['topRelevance', 'leadRelevance', 'leadMatch', 'nameMissingLead', 'nameMissingAll', 'typedMissing', 'speakerGap', 'relationMissing', 'lexicalGap', 'leadByOther', 'othersOnly'] as const;

/**
 * Whether an abstention model refuses an answer with these signals. A question that names something no
 * found memory holds (nameMissingAll 1: "What did Priya bake?" over notes about someone else) is refused
 * whatever the weights: LoCoMo's unanswerable questions name people its memories hold, so the fitted model
 * cannot learn this case (on the saved requests it refuses 2 of 576 answered answerable LoCoMo questions, 2
 * of 164 unanswerable ones).
 */
export function abstains(model: AbstentionModel | undefined, signals: readonly number[] | undefined): boolean {
  if (!model || !signals) return false;
  if (signals[ABSTENTION_SIGNALS.indexOf('nameMissingAll')] === 1) return true;
  return model.bias + model.weights.reduce((sum, weight, index) => sum + weight * (signals[index] ?? 0), 0) > 0;
}

/**
 * Per tier: sentences in the answer, sentences of multi-sentence memories embedded to rank them, and whether a
 * typed question (when, who, where, how many) is answered by the span alone or by the span and its sentence.
 */
const TIERS: Record<AnswerTier, { readonly sentences: number; readonly embed: number; readonly spanOnly: boolean }> = {
  fast: { sentences: 1, embed: 0, spanOnly: true },
  default: { sentences: 1, embed: 4, spanOnly: true },
  smart: { sentences: 2, embed: 16, spanOnly: false },
};

/** Word tokens of a sentence with their character offsets (to measure distances in words). */
function tokensOf(sentence: string): { word: string; at: number }[] {
  return [...sentence.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)].map((match) => ({ word: stem(match[0].toLowerCase()), at: match.index ?? 0 }));
}

/**
 * How close a phrase at `at` lies to the question's words in its sentence: 1 beside one, falling with the
 * number of words between (half at three words); 0 when the sentence holds none of them.
 */
function closeness(sentence: string, at: number, questionWords: ReadonlySet<string>): number {
  const tokens = tokensOf(sentence);
  const index = tokens.findIndex((token) => token.at >= at);
  const position = index < 0 ? tokens.length : index;
  let best = 0;
  tokens.forEach((token, i) => {
    if (questionWords.has(token.word)) best = Math.max(best, 1 / (1 + Math.abs(i - position) / 3));
  });
  return best;
}

const CLAUSE_BREAK = /[,;:!?.()"“”]|\s[–—-]\s|\b(?:but|because|so|although|though|which|who|when|while|and i|and we|and it)\b/iu;

/**
 * The focus of an untyped question's answer: in the clause holding the question's words, the words after
 * the last of them (or, when the clause ends there, before the first), stopwords trimmed at both ends, at
 * most `limit` words. "What did Priya research?" over "I've been researching rowing clubs lately"
 * gives "rowing clubs lately". Undefined when nothing remains.
 */
function focusSpan(sentence: string, questionWords: ReadonlySet<string>, limit: number): string | undefined {
  const text = withoutLabel(sentence);
  const clauses = text.split(new RegExp(CLAUSE_BREAK.source, 'giu')).map((clause) => clause.trim()).filter(Boolean);
  const scored = clauses
    .map((clause) => ({ clause, words: clause.split(/\s+/), hits: tokensOf(clause).filter((token) => questionWords.has(token.word)).length }))
    .sort((a, b) => b.hits - a.hits);
  const best = scored[0];
  if (!best) return undefined;
  const words = best.words;
  const isAsked = (word: string) => questionWords.has(stem(word.toLowerCase().replace(/[^\p{L}\p{N}'’]/gu, '')));
  const trim = (part: string[]) => {
    let out = part.filter((word) => word.replace(/[^\p{L}\p{N}]/gu, '') !== '');
    while (out.length > 0 && (isStopword(out[0] ?? '') || isAsked(out[0] ?? ''))) out = out.slice(1);
    while (out.length > 0 && (isStopword(out[out.length - 1] ?? '') || isAsked(out[out.length - 1] ?? ''))) out = out.slice(0, -1);
    return out;
  };
  const asked = words.map((word, index) => (isAsked(word) ? index : -1)).filter((index) => index >= 0);
  let part: string[];
  if (asked.length === 0) part = trim(words);
  else {
    const after = trim(words.slice((asked[asked.length - 1] ?? 0) + 1));
    part = after.length > 0 ? after : trim(words.slice(0, asked[0]));
  }
  if (part.length === 0) return undefined;
  return part.slice(0, limit).join(' ').replace(/[.,;:!?]+$/u, '');
}

/**
 * A line less its speaker label and its trailing date stamp, with the words at either end that are
 * stopwords or the question's own words removed; the line itself when nothing would remain.
 */
function withoutEcho(sentence: string, questionWords: ReadonlySet<string>): string {
  const text = withoutLabel(sentence);
  const bare = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}'’]/gu, '');
  const idle = (word: string) => {
    const core = bare(word);
    return core === '' || isStopword(core) || questionWords.has(stem(core));
  };
  let parts = text.split(/\s+/).filter(Boolean);
  while (parts.length > 0 && idle(parts[0] ?? '')) parts = parts.slice(1);
  while (parts.length > 0 && idle(parts[parts.length - 1] ?? '')) parts = parts.slice(0, -1);
  return parts.length > 0 ? parts.join(' ').replace(/[.,;:!?]+$/u, '') : sentence;
}

/**
 * The things a phrase lists, each on its own: "pottery, painting and camping with the kids" gives "pottery",
 * "painting", "camping with the kids". Parts are split at commas, semicolons, dashes and "and"/"or", and
 * trimmed like withoutEcho; the phrase itself when it lists nothing.
 */
export function listedParts(phrase: string, questionWords: ReadonlySet<string>): string[] {
  const idle = (word: string) => {
    const core = word.toLowerCase().replace(/[^\p{L}\p{N}'’]/gu, '');
    return core === '' || isStopword(core) || questionWords.has(stem(core));
  };
  const parts = phrase
    .split(/[,;:!?.()"“”]|\s[–—-]\s|\s+(?:and|or|&|plus|as well as)\s+/iu)
    .map((part) => {
      let tokens = part.split(/\s+/).filter(Boolean);
      while (tokens.length > 0 && idle(tokens[0] ?? '')) tokens = tokens.slice(1);
      while (tokens.length > 0 && idle(tokens[tokens.length - 1] ?? '')) tokens = tokens.slice(0, -1);
      return tokens.join(' ');
    })
    .filter((part) => part !== '');
  return parts.length > 0 ? parts : [phrase];
}

/** The first quoted phrase of a line (2-60 characters) that is not the question's own words. */
function quotedTitle(sentence: string, questionWords: ReadonlySet<string>): string | undefined {
  for (const match of sentence.matchAll(/["“]([^"“”]{2,60})["”]/gu)) {
    const title = (match[1] ?? '').trim().replace(/[.,;:!?]+$/u, '');
    const own = contentWords(title);
    if (own.length > 0 && own.some((word) => !questionWords.has(word))) return title;
  }
  return undefined;
}

/**
 * Of the names and titles a line gives, the one nearest the question's words, with the names joined to it
 * by "and": "I'm a fan of both classical like Bach and Mozart, as well as modern music like Ed Sheeran's
 * 'Perfect'" answers "Which classical musicians...?" with "Bach and Mozart". The first on a tie, or when
 * the line holds none of the question's words.
 */
function nearestName(sentence: string, found: readonly string[], questionWords: ReadonlySet<string>): string | undefined {
  let best: { name: string; near: number } | undefined;
  for (const name of found) {
    const at = sentence.indexOf(name);
    const near = at < 0 ? 0 : closeness(sentence, at, questionWords);
    if (!best || near > best.near) best = { name, near };
  }
  if (!best) return undefined;
  let named = best.name;
  for (;;) {
    const at = sentence.indexOf(named);
    const next = found.find((other) => !named.includes(other) && sentence.startsWith(` and ${other}`, at + named.length));
    if (!next) return named;
    named = `${named} and ${next}`;
  }
}

/** Fewest content words beyond the question's that a line needs not to count as filler. */
const FILLER_WORDS = 2;

/** Content words beyond the question's at which a line counts as telling all it can (newsWeight). */
const NEWS_WORDS = 6;

/** A further sentence joins the answer only when it scores this close to the best one. */
const KEEP_RATIO = 0.85;

interface Candidate {
  readonly source: AnswerSource;
  readonly sourceIndex: number;
  /** The sentence as shown: a speaker label ("Priya: ") repeated for later sentences of a turn. */
  readonly text: string;
  readonly lexical: number;
  semantic: number;
  readonly bonus: number;
  /** Content words of the line that the question does not already hold: what it could tell. */
  readonly news: number;
  /** Whether the line's speaker is a person the question names. */
  readonly byAsked: boolean;
  /** Its place among its memory's lines. */
  readonly lineIndex: number;
  /** It names something (a capitalised phrase past the speaker label) the question does not. */
  readonly newName: boolean;
  /** How well the question its memory replies to matches the question asked (0-1; 0 when none). */
  readonly reply: number;
  /** It holds a word of the question's head (headWords): the kind of thing asked for. */
  readonly head: boolean;
  /** What its memory as a whole holds (see LINE_FEATURES: memoryLexical, contextLexical, namesHeld, alone). */
  readonly memory: { readonly lexical: number; readonly context: number; readonly names: number; readonly lines: number };
  /** Share of the question's word pairs (pairsOf) the line holds in the same order. */
  readonly pairs: number;
}

/** Adjacent pairs of content words, in order: "charity race" of "after the charity race". */
function pairsOf(stems: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < stems.length; i++) out.add(`${stems[i - 1]} ${stems[i]}`);
  return out;
}

/** A line's LINE_FEATURES. */
function lineFeatures(c: Candidate): number[] {
  return [
    c.lexical,
    c.semantic,
    c.bonus > 0 ? 1 : 0,
    isQuestion(c.text) ? 1 : 0,
    c.news < FILLER_WORDS && speakerLabel(c.text) !== undefined ? 1 : 0,
    c.byAsked ? 1 : 0,
    Math.min(1, c.news / NEWS_WORDS),
    Math.min(1, c.sourceIndex / 10),
    /["“][^"”]{2,60}["”]/u.test(c.text) ? 1 : 0,
    Math.min(1, c.text.split(/\s+/).length / 30),
    c.newName ? 1 : 0,
    c.lineIndex === 0 ? 1 : 0,
    c.reply,
    c.head ? 1 : 0,
    c.lineIndex === 0 ? c.reply : 0,
    c.source.relevance,
    c.memory.lexical,
    c.memory.context,
    c.pairs,
    c.memory.names,
    c.memory.lines === 1 ? 1 : 0,
  ];
}

/**
 * Whether a speaker label names one of the question's people: the whole label or its first name, or a short
 * form of it ("Dan" for "Daniel"), compared lowercased.
 */
function speakerMatcher(questionNames: readonly string[]): (label: string | undefined) => boolean {
  const names = questionNames.flatMap((name) => name.split(/\s+/)).filter((name) => name.length >= 3);
  return (label) => {
    if (!label || names.length === 0) return false;
    const first = label.toLowerCase().split(/\s+/)[0] ?? '';
    return names.some((name) => first === name || first.startsWith(name) || (first.length >= 3 && name.startsWith(first)));
  };
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

  constructor(
    private readonly embedder: EmbeddingModel,
    private readonly rules: AnswerRules,
  ) {}

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
  async extract(request: AnswerRequest): Promise<ExtractedAnswer> {
    const promptTokens = countTokens(request.question) + request.sources.reduce((sum, source) => sum + countTokens(source.content), 0);
    const fromFacts = factAnswer(request);
    if (fromFacts) return { ...fromFacts, promptTokens, basis: 'facts' };
    const passage = await this.fromPassages(this.asked(request));
    if (abstains(this.rules.abstention, passage.signals)) return { text: '', cited: [], support: 0, promptTokens, basis: 'passages', signals: passage.signals };
    return { ...passage, promptTokens, basis: 'passages' };
  }

  /** The request with its question's short names written out, with shortNames (withFullNames). */
  private asked(request: AnswerRequest): AnswerRequest {
    if (!this.rules.shortNames) return request;
    const speakers = new Set(request.sources.map((source) => speakerLabel(source.content)).filter((label) => label !== undefined));
    const known = new Set(request.sources.flatMap((source) => properNouns(withoutLabel(source.content))));
    const question = withFullNames(request.question, speakers, known);
    return question === request.question ? request : { ...request, question };
  }

  /**
   * Every line of the retrieved memories with its LINE_FEATURES, for a question a phrase of its line answers
   * (undefined for "when"): what bench/fit-answers.ts fits AnswerRules.lineWeights on.
   */
  async lines(original: AnswerRequest): Promise<{ text: string; answer: string; sourceId: string; features: number[] }[] | undefined> {
    const request = this.asked(original);
    const kind = questionKind(request.question);
    if (kind === 'when') return undefined;
    const { candidates, questionNames, questionWordSet } = await this.candidatesOf(request, kind);
    const known = knownNames(request);
    // What the answer would be were the line ranked first (a list question's other items aside): its typed
    // phrase or its untyped one (phraseOf), as fromPassages gives it.
    const answerOf = (candidate: Candidate) =>
      kind === 'other'
        ? this.phraseOf(candidate.text, request.question, questionNames, questionWordSet)
        : (this.typedSpan(kind, candidate.text, questionNames, known, request.question) ?? candidate.text);
    return candidates.map((candidate) => ({ text: candidate.text, answer: answerOf(candidate), sourceId: candidate.source.id, features: lineFeatures(candidate) }));
  }

  /**
   * An untyped line's phrase, as the rules give it: its quoted title, the reason it gives a "why" question,
   * the words that fill a "what" question's gap, its focus, or the line less its echo.
   */
  private phraseOf(sentence: string, question: string, questionNames: ReadonlySet<string>, questionWords: ReadonlySet<string>): string {
    return (
      (this.rules.quotedTitles ? quotedTitle(sentence, questionWords) : undefined) ??
      (this.rules.reasons && WHY_QUESTION.test(question) ? reasonOf(sentence) : undefined) ??
      (this.rules.gapRun ? gapFiller(sentence, question, questionNames, this.rules.gapRun) : undefined) ??
      (this.rules.focusWords > 0 ? focusSpan(sentence, questionWords, this.rules.focusWords) : undefined) ??
      (this.rules.trimEcho ? withoutEcho(sentence, questionWords) : sentence)
    );
  }

  /**
   * A typed line's phrase: for "who" first the doer of the question's verb (doerOf), then answerSpan, then
   * for a line that names no one its tie (tieAnswers).
   */
  private typedSpan(kind: QuestionKind, sentence: string, questionNames: ReadonlySet<string>, known: ReadonlySet<string>, question: string): string | undefined {
    return (kind === 'who' ? this.doerOf(sentence, question, questionNames) : undefined) ?? this.namedSpan(kind, sentence, questionNames, known, question);
  }

  /** typedSpan less the doer: answerSpan, then for "who" over a line that names no one its tie. */
  private namedSpan(kind: QuestionKind, sentence: string, questionNames: ReadonlySet<string>, known: ReadonlySet<string>, question: string): string | undefined {
    return answerSpan(kind, sentence, questionNames, known, question) ?? (kind === 'who' && this.rules.tieAnswers ? tiePhrase(sentence, question) : undefined);
  }

  /** Who a line names as the doer of the question's verb (subjectOf) or as the role it asks for (holderOf). */
  private doerOf(sentence: string, question: string, questionNames: ReadonlySet<string>): string | undefined {
    return subjectOf(sentence, question, questionNames, this.rules.tieAnswers === true) ?? holderOf(sentence, question);
  }

  /** The first of these lines that names the thing the question places with its modifier (objectBefore). */
  private objectOf(lines: readonly Candidate[], question: string, questionNames: ReadonlySet<string>): { candidate: Candidate; fill: GapFill } | undefined {
    for (const candidate of lines) {
      if (isQuestion(candidate.text)) continue;
      const fill = objectBefore(candidate.text, question, questionNames);
      if (fill !== undefined) return { candidate, fill };
    }
    return undefined;
  }

  /** The lines of the retrieved memories, scored on their own (lexical match, embedding, type). */
  private async candidatesOf(request: AnswerRequest, kind: QuestionKind) {
    const tier = TIERS[request.tier];
    const questionWords = [...new Set(contentWords(request.question))];
    const questionNames = new Set(properNouns(request.question).map((name) => name.toLowerCase()));
    const questionWordSet = new Set(questionWords);
    const askedSpeaker = speakerMatcher(questionNamesOf(request.question));
    const head = headWords(request.question).map(wordKey);
    // Lines are matched to the question on word keys (wordKey: "allergic" meets "allergies"); the stems
    // stay what the echo and closeness steps compare.
    const questionTerms = [...new Set(termsOf(request.question))];
    const questionTermSet = new Set(questionTerms);

    // Rarer words among the retrieved memories say more about which sentence answers (idf over the sources).
    const documents = request.sources.map((source) => new Set(termsOf(source.content)));
    const weight = new Map(
      questionTerms.map((word) => {
        const df = documents.filter((document) => document.has(word)).length;
        return [word, Math.log(1 + (documents.length + 1) / (df + 0.5))] as const;
      }),
    );
    const totalWeight = [...weight.values()].reduce((sum, value) => sum + value, 0);
    const lexicalOf = (present: ReadonlySet<string>) =>
      totalWeight <= 0 ? 0 : questionTerms.reduce((sum, word) => sum + (present.has(word) ? (weight.get(word) ?? 0) : 0), 0) / totalWeight;

    // Pairs of the question's content words in their order ("charity race"): a line holding the pair holds
    // the phrase asked about, not two of its words met apart.
    const questionPairs = pairsOf(termsOf(request.question));
    const names = questionNamesOf(request.question);

    const candidates: Candidate[] = [];
    const multi: Candidate[] = [];
    request.sources.forEach((source, sourceIndex) => {
      const list = memorySentences(source.content);
      // The questions of the context this memory replies to, the best one's match (0 when it asks none).
      const reply = Math.max(0, ...memorySentences(source.context ?? '').filter(isQuestion).map((asked) => lexicalOf(new Set(termsOf(asked)))));
      const memory = {
        lexical: lexicalOf(documents[sourceIndex] ?? new Set()),
        context: lexicalOf(new Set(termsOf(source.context ?? ''))),
        names: names.length === 0 ? 0 : names.filter(mentions(`${source.content} ${source.context ?? ''}`)).length / names.length,
        lines: list.length,
      };
      for (const [lineIndex, text] of list.entries()) {
        const terms = termsOf(text);
        const present = new Set(terms);
        const linePairs = pairsOf(terms);
        const candidate: Candidate = {
          source,
          sourceIndex,
          text,
          lexical: lexicalOf(present),
          // A one-sentence memory's relevance is already that sentence's match to the question.
          semantic: source.relevance,
          bonus: kindBonus(kind, text, questionNames),
          news: [...present].filter((word) => !questionTermSet.has(word) && !questionNames.has(word)).length,
          byAsked: askedSpeaker(speakerLabel(text)),
          lineIndex,
          newName: properNouns(withoutLabel(text)).some((name) => !questionNames.has(name.toLowerCase())),
          reply,
          head: head.some((word) => present.has(word)),
          memory,
          pairs: questionPairs.size === 0 ? 0 : [...questionPairs].filter((pair) => linePairs.has(pair)).length / questionPairs.size,
        };
        candidates.push(candidate);
        if (list.length > 1) multi.push(candidate);
      }
    });
    if (candidates.length === 0) return { candidates, questionWords, questionNames, questionWordSet };

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

    return { candidates, questionWords, questionNames, questionWordSet };
  }

  /** The passage answer: the best sentence, or the typed phrase of it that answers. */
  private async fromPassages(request: AnswerRequest): Promise<{ text: string; cited: string[]; support: number; signals?: number[] }> {
    const tier = TIERS[request.tier];
    const kind = questionKind(request.question);
    const { candidates, questionWords, questionNames, questionWordSet } = await this.candidatesOf(request, kind);
    if (candidates.length === 0) return { text: '', cited: [], support: 0 };
    const lineWeights = kind === 'when' ? undefined : this.rules.lineWeights;
    const handScore = (c: Candidate) =>
      0.5 * c.lexical +
      0.5 * c.semantic +
      c.bonus -
      0.01 * c.sourceIndex -
      (isQuestion(c.text) ? this.rules.questionPenalty : 0) -
      (c.news < FILLER_WORDS && speakerLabel(c.text) !== undefined ? this.rules.fillerPenalty : 0) +
      (c.byAsked ? this.rules.speakerWeight : 0) +
      this.rules.newsWeight * Math.min(1, c.news / NEWS_WORDS);
    // A fitted ranker's value is a log-odds: the logistic keeps it positive, as KEEP_RATIO needs.
    // Scored once per line: the sort and the list and span steps ask for the same scores many times.
    const scores = new Map<Candidate, number>();
    const score = (c: Candidate) => {
      let value = scores.get(c);
      if (value === undefined) {
        value = lineWeights ? 1 / (1 + Math.exp(-lineFeatures(c).reduce((sum, feature, index) => sum + feature * (lineWeights[index] ?? 0), 0))) : handScore(c);
        scores.set(c, value);
      }
      return value;
    };
    const ranked = [...candidates].sort((a, b) => score(b) - score(a));
    const best = ranked[0] as Candidate;
    if (this.rules.abstainOnQuestion && isQuestion(best.text)) return { text: '', cited: [], support: 0 };
    const picked = [best];
    for (const candidate of ranked.slice(1)) {
      if (picked.length >= tier.sentences) break;
      if (score(candidate) >= KEEP_RATIO * score(best) && !picked.some((p) => p.text === candidate.text)) picked.push(candidate);
    }

    let text = picked.map((candidate) => candidate.text).join(' ');
    const concise = tier.spanOnly && !isCompound(request.question);
    let typedMissing = false;
    if (kind === 'when') {
      const date = dateOf(best, request.question);
      text = concise ? date : `${date} — ${text}`;
    } else if (kind === 'other') {
      const phrase = (candidate: Candidate) => this.phraseOf(candidate.text, request.question, questionNames, questionWordSet);
      const whether = concise && this.rules.yesNo === true && YES_NO_QUESTION.test(request.question) && !CHOICE.test(request.question);
      if (concise) text = whether ? yesNoOf(best.text, request.question) : phrase(best);
      // The conversation's own speakers are addressed, not named as the answer.
      const speakers = new Set(request.sources.map((source) => speakerLabel(source.content)?.toLowerCase()).filter((label) => label !== undefined));
      // A question for works (books, songs, films) is not answered by their makers: "Piranesi by Susanna Clarke".
      const asksWorks = WORKS_QUESTION.test(request.question.trim());
      const newNames = (candidate: Candidate, title: string | undefined) => {
        const text = withoutLabel(candidate.text);
        return properNouns(text).filter((name) => {
          const lower = name.toLowerCase();
          if (asksWorks && new RegExp(`\\bby\\s+${escapeRegExp(name)}`, 'u').test(text)) return false;
          return !speakers.has(lower) && !questionNames.has(lower) && ![...questionNames].some((asked) => asked.includes(lower)) && !(title ?? '').includes(name);
        });
      };
      let named = false;
      if (concise && !whether && this.rules.namedThings && asksForNamedThing(request.question) && !isListQuestion(request.question)) {
        // "What book / which city / what game": the title or name of the best line that has one answers.
        for (const candidate of ranked.slice(0, Math.max(1, this.rules.window))) {
          if (isQuestion(candidate.text)) continue;
          const title = quotedTitle(candidate.text, questionWordSet);
          const name = this.rules.nearestNames ? nearestName(candidate.text, [...(title ? [title] : []), ...newNames(candidate, title)], questionWordSet) : (title ?? newNames(candidate, undefined)[0]);
          if (!name) continue;
          text = name;
          named = true;
          picked.splice(0, picked.length, candidate);
          break;
        }
      }
      if (concise && !whether && !named && this.rules.gapRun && this.rules.gapWindow && !isListQuestion(request.question)) {
        // The first of the best lines that fills the gap answers: the best line's filler beats a title it
        // quotes (a question may name that title itself: 'What is the type of game "Xenoblade..."?'), and a
        // line a little lower that fills the gap beats a best line that does not. With gapLongest, the line
        // that says the most of the question's phrase fills it (the best of those).
        let chosen: { candidate: Candidate; fill: GapFill } | undefined;
        for (const candidate of ranked.slice(0, this.rules.gapWindow)) {
          if (isQuestion(candidate.text)) continue;
          const fill = gapFill(candidate.text, request.question, questionNames, this.rules.gapRun);
          if (!fill) continue;
          if (!chosen || (this.rules.gapLongest && fill.run > chosen.fill.run)) chosen = { candidate, fill };
          if (!this.rules.gapLongest) break;
        }
        // A line that says the question's modifier with the thing before it beats one that only says fewer
        // of the question's words after its verb ("make something good out of it").
        const placed = this.rules.objectsBefore ? this.objectOf(ranked.slice(0, this.rules.gapWindow), request.question, questionNames) : undefined;
        if (chosen && !(placed && placed.fill.run > chosen.fill.run)) {
          text = chosen.fill.text;
          picked.splice(0, picked.length, chosen.candidate);
        } else if (placed) {
          // A line says what the question's verb placed where the question places it.
          text = placed.fill.text;
          picked.splice(0, picked.length, placed.candidate);
        } else if (this.rules.headPhrases && !(this.rules.quotedTitles && quotedTitle(best.text, questionWordSet))) {
          // No line says the question's verb phrase: the best line that says the asked head with its own
          // modifiers answers ("LGBTQ+ counseling workshop" for "What workshop did she attend?").
          for (const candidate of ranked.slice(0, this.rules.gapWindow)) {
            if (isQuestion(candidate.text)) continue;
            const head = headPhrase(candidate.text, request.question);
            if (!head) continue;
            text = head;
            picked.splice(0, picked.length, candidate);
            break;
          }
        }
      }
      if (concise && !whether && this.rules.listItems > 1 && isListQuestion(request.question)) {
        // The other items of a list live in other memories: the next best lines of other memories that
        // score near the best one and tell rather than ask.
        const items = [best];
        // Names asked for: the lines that name something, however far down, hold the items; a line naming
        // nothing holds none of them, whatever it scores.
        const titled = (candidate: Candidate) => (this.rules.quotedTitles ? quotedTitle(candidate.text, questionWordSet) : undefined);
        const naming: Candidate[] = [];
        if (this.rules.listNames && this.rules.namedLists && asksForNamedThing(request.question)) {
          for (const candidate of ranked) {
            if (naming.length >= this.rules.listItems) break;
            if (isQuestion(candidate.text) || naming.some((item) => item.source.id === candidate.source.id)) continue;
            if (titled(candidate) !== undefined || newNames(candidate, undefined).length > 0) naming.push(candidate);
          }
        }
        if (naming.length > 0) {
          items.splice(0, items.length, ...naming);
        } else {
          for (const candidate of ranked.slice(1)) {
            if (items.length >= this.rules.listItems || score(candidate) < KEEP_RATIO * score(best)) break;
            if (isQuestion(candidate.text) || items.some((item) => item.source.id === candidate.source.id)) continue;
            items.push(candidate);
          }
        }
        picked.splice(0, picked.length, ...items);
        const parts = (candidate: Candidate) => (this.rules.listParts ? listedParts(phrase(candidate), questionWordSet) : [phrase(candidate)]);
        if (this.rules.listNames) {
          // Names and titles answer "which cities / what books / what are the names of": the items are those
          // of the lines, not the lines.
          const named = (candidate: Candidate) => {
            const title = this.rules.quotedTitles ? quotedTitle(candidate.text, questionWordSet) : undefined;
            const found = [...(title ? [title] : []), ...newNames(candidate, title)];
            return found.length > 0 ? found : parts(candidate);
          };
          text = [...new Set(items.flatMap(named))].join(', ');
        } else text = this.rules.listParts ? [...new Set(items.flatMap(parts))].join(', ') : joinList(items.map(phrase));
      }
      if (concise && !whether && !named && this.rules.elaborations && !isListQuestion(request.question)) text = elaborated(text, request.question);
      if (concise && !whether && !named && this.rules.timeless) text = withoutTimes(text);
    } else {
      // Typed candidates of the best few sentences compete: their sentence's score, plus how close each lies
      // to the question's words there (the name right after "signed with", not the one that asked).
      const known = knownNames(request);
      const asksNow = NOW_QUESTION.test(request.question);
      // Each line's doer of the question's verb, looked up once: such lines compete wherever they rank.
      const doerNames = new Map(kind === 'who' ? ranked.map((candidate) => [candidate, this.doerOf(candidate.text, request.question, questionNames)] as const) : []);
      const window = ranked.slice(0, Math.max(1, this.rules.window));
      const doers = ranked.slice(window.length).filter((candidate) => doerNames.get(candidate) !== undefined);
      const entries = [...window, ...doers]
        .map((candidate) => {
          const named = doerNames.get(candidate);
          const span = named ?? this.namedSpan(kind, candidate.text, questionNames, known, request.question);
          if (!span) return undefined;
          const at = candidate.text.indexOf(span.split(' and ')[0] ?? span);
          // A line naming the doer of the question's own verb ("Felix will water the plants") says who;
          // another line of the window may only name someone ("Anna moved to Hamburg").
          const doer = named !== undefined;
          return { candidate, span, doer, value: score(candidate) + this.rules.proximity * closeness(candidate.text, Math.max(0, at), new Set(questionWords)) };
        })
        .filter((entry) => entry !== undefined)
        .sort((a, b) => Number(b.doer) - Number(a.doer) || b.value - a.value);
      // "Who waters the plants now?" asks for what holds today: of the lines that answer as well as the best
      // one (a doer if it is one, the question's words as fully), the newest memory's ("Felix will water the
      // plants now" over an older note that Anna waters them), not a newer line about something else.
      const lead = entries[0];
      const typed =
        asksNow && lead
          ? entries
              .filter((entry) => entry.doer === lead.doer && entry.candidate.lexical >= lead.candidate.lexical)
              .sort((a, b) => b.candidate.source.date - a.candidate.source.date || b.value - a.value)[0]
          : lead;
      if (typed) {
        if (typed.candidate !== best) {
          picked.splice(0, picked.length, typed.candidate);
          text = typed.candidate.text;
        }
        text = concise ? typed.span : `${typed.span} — ${text}`;
      } else typedMissing = true;
    }
    const cited = [...new Set(picked.map((candidate) => candidate.source.id))];
    const lead = picked[0] ?? best;
    const support = Math.max(0, Math.min(1, 0.5 * lead.lexical + 0.5 * lead.semantic + lead.bonus));
    // The match of a line on its own (no speaker or type preference): who said the best-matching words.
    const match = (c: Candidate) => 0.5 * c.lexical + 0.5 * c.semantic;
    // Only lines that tell count: the named person asking about it ("Priya: What did it look like?")
    // is no sign that they did it.
    const spoken = candidates.filter((c) => speakerLabel(c.text) !== undefined && !isQuestion(c.text));
    const named = spoken.filter((c) => c.byAsked);
    const asksSpeaker = candidates.some((c) => c.byAsked);
    const speakerGap = asksSpeaker && spoken.length > 0 ? Math.max(0, Math.max(...spoken.map(match)) - Math.max(0, ...named.map(match))) : 0;
    // The same on the question's words alone, among lines that tell something: the memory's relevance is
    // alike for both speakers' turns of one exchange, the words that match are not.
    const telling = spoken.filter((c) => c.news >= FILLER_WORDS);
    const lexicalGap = asksSpeaker && telling.length > 0 ? Math.max(0, Math.max(...telling.map((c) => c.lexical)) - Math.max(0, ...telling.filter((c) => c.byAsked).map((c) => c.lexical))) : 0;
    const leadByOther = asksSpeaker && speakerLabel(lead.text) !== undefined && !lead.byAsked ? 1 : 0;
    // Which of the question's own words only others say: a question that gives the person a thing another
    // person did finds those words in the other's turns and never in the asked person's own.
    let othersOnly = 0;
    if (asksSpeaker) {
      const nameWords = new Set([...questionNames].flatMap((name) => contentWords(name)));
      const asked = questionWords.filter((word) => !nameWords.has(word));
      const said = (lines: readonly Candidate[]) => new Set(lines.flatMap((c) => contentWords(withoutLabel(c.text))));
      const own = said(named);
      const others = said(spoken.filter((c) => !c.byAsked));
      othersOnly = asked.length === 0 ? 0 : asked.filter((word) => others.has(word) && !own.has(word)).length / asked.length;
    }
    return {
      text,
      cited,
      support,
      signals: [...abstentionSignals(request, lead, typedMissing), Math.min(1, speakerGap), relationMissing(request), Math.min(1, lexicalGap), leadByOther, othersOnly],
    };
  }
}

/** Words that deny what follows them: "haven't paid", "never went", "not yet". */
const NEGATION = /^(?:not|never|no|nope|nah|cannot|without|\w+n['’]t)$/iu;

/**
 * "Yes" from a line that says what a yes-no question asks, "No" from one that opens by denying it or denies
 * the first of the question's words it says ("I haven't paid the gas bill" for "Did I pay the gas bill?").
 */
function yesNoOf(sentence: string, question: string): string {
  const text = withoutLabel(sentence);
  if (/^\s*(?:no|nope|nah|not really|not yet|never)\b/iu.test(text)) return 'No';
  const asked = new Set(termsOf(question));
  const written = text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  const first = written.findIndex((word) => termsOf(word).some((term) => asked.has(term)));
  if (first < 0) return 'Yes';
  return written.slice(Math.max(0, first - 3), first).some((word) => NEGATION.test(word)) ? 'No' : 'Yes';
}

/**
 * The date a line answers a "when" question with: a relative phrase resolved against the day its memory was
 * written, an explicit date (a lone weekday resolved the same way), or that day itself. "How long ago...?"
 * asks for the span: "ten years ago" answers it as written.
 */
function dateOf(candidate: Candidate, question: string): string {
  const explicit = findExplicitDate(candidate.text);
  const relative = findRelativeDate(candidate.text);
  const span = relative && /^how long ago\b/iu.test(question.trim()) && /\bago$/iu.test(relative) ? relative : undefined;
  const lead =
    span ??
    (relative ? resolveRelativeDate(relative, candidate.source.date) : undefined) ??
    (explicit ? (resolveWeekday(explicit, candidate.text, candidate.source.date) ?? explicit) : undefined) ??
    resolveMonth(candidate.text, candidate.source.date) ??
    formatDay(candidate.source.date);
  return `${lead.charAt(0).toUpperCase()}${lead.slice(1)}`;
}

/** The names the memories use (speakers, capitalised words past the label), lowercased: see answerSpan. */
function knownNames(request: AnswerRequest): Set<string> {
  return new Set(
    request.sources.flatMap((source) => [speakerLabel(source.content) ?? '', ...properNouns(withoutLabel(source.content))]).map((name) => name.toLowerCase()),
  );
}

/** "X", "X and Y", "X, Y and Z". */
function joinList(items: readonly string[]): string {
  const unique = [...new Set(items.map((item) => item.replace(/[.!]+$/u, '')))];
  return unique.length > 1 ? `${unique.slice(0, -1).join(', ')} and ${unique[unique.length - 1]}` : (unique[0] ?? '');
}

/**
 * Whether a text mentions a name: whole words only ("Dan" is not in "Daniel"), a possessive counting as its
 * name ("Anna's birthday" mentions Anna).
 */
function mentions(content: string): (name: string) => boolean {
  const bare = (text: string) => words(text).map((word) => word.replace(/['’]s$/u, ''));
  const text = ` ${bare(content).join(' ')} `;
  const held = (name: string) => text.includes(` ${bare(name).join(' ')} `);
  // "CTO of Brightline" reads as one name in a question; a note may say "Brightline ... the CTO".
  return (name) => held(name) || (/\sof\s/u.test(name) && name.split(/\s+of\s+/u).every(held));
}

/** The signals of ABSTENTION_SIGNALS for an answer drawn from `lead`. */
function abstentionSignals(request: AnswerRequest, lead: Candidate, typedMissing: boolean): number[] {
  const names = questionNamesOf(request.question);
  const inLead = mentions(lead.source.content);
  const inAny = request.sources.map((source) => mentions(source.content));
  const share = (missing: (name: string) => boolean) => (names.length === 0 ? 0 : names.filter(missing).length / names.length);
  const relevance = (value: number) => Math.max(0, Math.min(1, value));
  return [
    relevance(Math.max(0, ...request.sources.map((source) => source.relevance))),
    relevance(lead.source.relevance),
    relevance(lead.lexical),
    share((name) => !inLead(name)),
    share((name) => !inAny.some((has) => has(name))),
    typedMissing ? 1 : 0,
  ];
}

/** The relationMissing signal of ABSTENTION_SIGNALS. */
function relationMissing(request: AnswerRequest): number {
  const names = questionNamesOf(request.question);
  if (names.length === 0) return 0;
  const nameWords = new Set(names.flatMap((name) => termsOf(name)));
  const asked = [...new Set(termsOf(request.question))].filter((word) => !nameWords.has(word));
  if (asked.length === 0) return 0;
  const naming = request.sources.filter((source) => names.some(mentions(source.content)));
  if (naming.length === 0) return 0;
  const present = new Set(naming.flatMap((source) => termsOf(source.content)));
  return asked.filter((word) => !present.has(word)).length / asked.length;
}

/** What the extractive answerer found: the text ('' when it abstains) and what its confidence stands on. */
export interface ExtractedAnswer {
  readonly text: string;
  readonly cited: string[];
  readonly support: number;
  readonly promptTokens: number;
  readonly basis: 'facts' | 'passages';
  /** ABSTENTION_SIGNALS of a passage answer (the fit of the abstention model reads them). */
  readonly signals?: readonly number[];
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
