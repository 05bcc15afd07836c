import { core, nameMatch, nameQuality, normalise } from '../../core/knowledge/names.js';
import type {
  EntityType,
  ExtractedEntity,
  ExtractedFact,
  ExtractedRelationship,
  Extraction,
  ExtractRequest,
  Extractor,
  FactCategory,
} from '../spec.js';
import {
  COMPANY_CONTEXT_BEFORE,
  COMPANY_SUFFIXES,
  COMPANY_WORDS,
  EMPLOYER_NOUNS,
  EVENT_CONTEXT_BEFORE,
  EVENT_WORDS,
  HONORIFICS,
  INTERJECTIONS,
  JOB_TITLES,
  KINSHIP_WORDS,
  LOCATION_CONTEXT_BEFORE,
  LOCATION_WORDS,
  METRIC_NAMES,
  NOT_NAMES,
  PERSON_CONTEXT_AFTER,
  PERSON_CONTEXT_BEFORE,
  PERSON_ONLY_AFTER,
  PERSON_ONLY_BEFORE,
  PRODUCT_CONTEXT_BEFORE,
  PRODUCT_WORDS,
  ROLE_TITLES,
} from './extraction-lexicon.js';
import { escapeRegExp } from '../../core/answers/text.js';
import { PRONOUN_CONFIDENCE, resolvePronouns } from './coreference.js';
import { ExtractionThread } from './extraction-thread.js';

/**
 * The offline extractor: wink-nlp splits sentences and tags parts of speech (its proper-noun runs are the
 * candidate names), compromise recognises people and places it knows, compromise-dates reads dates, and
 * the rules here type each name from its words and context, group aliases within the text, and read facts
 * and relationships from common sentence patterns, where a resolved pronoun ("she", coreference.ts) stands
 * for its person. Deterministic; a few milliseconds per note once loaded.
 *
 * Confidences are per pattern, set from their precision on the labelled set (bench/extraction.ts); a fact
 * read through a pronoun has less (PRONOUN_CONFIDENCE).
 */

interface Nlp {
  compromise: CompromiseFn;
  wink: WinkInstance;
}

// Minimal structural types of the parts of compromise and wink-nlp used here.
interface CompromiseView {
  people(): CompromiseView;
  places(): CompromiseView;
  organizations(): CompromiseView;
  dates(options?: { today?: string }): CompromiseView;
  out(format: 'array'): string[];
  match(pattern: string): CompromiseView;
  json(): { text: string; dates?: { start?: string } }[];
  has(pattern: string): boolean;
}
type CompromiseFn = ((text: string) => CompromiseView) & { plugin(plugin: unknown): void };
interface WinkItemTokens {
  out(what?: unknown): string[];
}
interface WinkSentence {
  tokens(): WinkItemTokens;
}
interface WinkDoc {
  sentences(): { each(callback: (sentence: WinkSentence) => void): void };
}
interface WinkInstance {
  readDoc(text: string): WinkDoc;
  its: { pos: unknown; precedingSpaces: unknown; value: unknown };
}

let loading: Promise<Nlp> | undefined;

/** The NLP libraries load once, on first use (~0.3 s), not when the daemon starts. */
function loadNlp(): Promise<Nlp> {
  loading ??= (async () => {
    const [{ default: compromise }, { default: dates }, { default: winkNLP }, { default: model }] = await Promise.all([
      import('compromise'),
      import('compromise-dates'),
      import('wink-nlp'),
      import('wink-eng-lite-web-model'),
    ]);
    (compromise as unknown as CompromiseFn).plugin(dates);
    const wink = (winkNLP as unknown as (model: unknown) => WinkInstance)(model);
    return { compromise: compromise as unknown as CompromiseFn, wink };
  })();
  return loading;
}

interface Token {
  readonly text: string;
  readonly pos: string;
  readonly start: number;
  readonly end: number;
}

interface Sentence {
  readonly text: string;
  readonly tokens: Token[];
  /** The line of the text it is on (sentences of one line share it). */
  readonly line: number;
}

interface Mention {
  /** Key of the name group (normalised core). */
  key: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly sentence: number;
  /** A pronoun standing for the entity. */
  readonly pronoun?: boolean;
}

interface Candidate {
  readonly key: string;
  readonly names: Map<string, number>;
  readonly scores: Record<EntityType, number>;
  mentions: number;
  firstIndex: number;
  sentenceInitialOnly: boolean;
  /** A mention ends in a place word and does or undergoes what only people do ("Lena Park moved", "approved by Mina Park"): PERSON_ONLY_AFTER, PERSON_ONLY_BEFORE. */
  placeWordAgent: boolean;
}

const NAME_PREFIXES = new Set(['new', 'big', 'old', 'great', 'grand', 'north', 'south', 'east', 'west', 'first', 'san', 'saint', 'st', 'fort', 'port', 'mount', 'lake', 'upper', 'lower', 'little']);
const CONNECTORS = new Set(['of', '&', 'de', 'van', 'von', 'der', 'da', 'du', 'la', 'del', 'le', 'y', 'di']);
const CLOSED_POS = new Set(['PRON', 'DET', 'ADP', 'CCONJ', 'SCONJ', 'AUX', 'PUNCT', 'SYM', 'PART', 'SPACE', 'INTJ']);

const alternation = (words: readonly string[]) =>
  [...words].sort((a, b) => b.length - a.length).map((word) => escapeRegExp(word).replace(/ /g, '\\s+')).join('|');

const ROLE_RE = alternation(Object.keys(ROLE_TITLES));
const JOB_RE = alternation(JOB_TITLES);
const METRIC_RE = alternation(METRIC_NAMES);

// Fact patterns built once from the word lists.
const PERSON_ROLE_RE = new RegExp(
  `^,?\\s*(?:who\\s+is\\s+|is\\s+|was\\s+|has\\s+been\\s+|became\\s+|becomes\\s+|will\\s+be\\s+|as\\s+|now\\s+|currently\\s+|just\\s+|recently\\s+|was\\s+named\\s+|was\\s+appointed\\s+|has\\s+been\\s+named\\s+|named\\s+|appointed\\s+|promoted\\s+to\\s+)*(?:the\\s+|our\\s+|their\\s+|its\\s+|a\\s+|an\\s+)?(?:new\\s+|current\\s+|interim\\s+|acting\\s+)?(${ROLE_RE})\\s+(?:of|at|for)\\s+(?:the\\s+)?$`,
);
const PERSON_JOB_RE = new RegExp(
  `^,?\\s*(?:who\\s+is\\s+|is\\s+|was\\s+|works\\s+as\\s+|now\\s+|currently\\s+)*(?:the\\s+|our\\s+|their\\s+|a\\s+|an\\s+)?(?:[a-z-]+\\s+){0,3}?(${JOB_RE})(?:\\s+of\\s+[a-z ]{2,30}?)?\\s+(?:at|for|with|from)\\s+(?:the\\s+)?$`,
);
const COMPANY_ROLE_RE = new RegExp(`^['’]s\\s+(?:new\\s+|current\\s+|interim\\s+)?(${ROLE_RE})\\s*,?\\s*$`);
const COMPANY_JOB_RE = new RegExp(`^['’]s\\s+(?:[a-z-]+\\s+){0,2}(?:${JOB_RE})\\s*,?\\s*$`);
const BEFORE_TITLE_RE = new RegExp(`(?:^|\\s)(?:${ROLE_RE}|${JOB_RE})(?:\\s+of\\s+[a-z ]{2,30}?)?\\s+(?:of|at|for)$`);
const AFTER_TITLE_RE = new RegExp(`^['’]s\\s+(?:[a-z-]+\\s+){0,2}(?:${ROLE_RE}|${JOB_RE})\\b`);
const EMPLOYER_BEFORE_RE = new RegExp(`\\b(?:${alternation(EMPLOYER_NOUNS)})\\s*(?:,|\\bis|\\bwas|\\bcalled|\\bnamed)$`);
const EMPLOYER_RE = new RegExp(`^(?:['’]s)?\\s*(?:new\\s+|current\\s+|own\\s+)?(?:${alternation(EMPLOYER_NOUNS)})\\s*(?:,\\s*|\\s+is\\s+|\\s+)?(?:the\\s+)?$`);
const APPOSITION_ROLE_RE = new RegExp(`^,?\\s*(?:the\\s+|our\\s+|their\\s+|a\\s+|an\\s+)?(?:new\\s+)?(?:${ROLE_RE})\\b`);

const isUpperInitial = (text: string) => /^\p{Lu}/u.test(text) || /^\p{Ll}+\p{Lu}/u.test(text);
const stripEdge = (text: string) => text.replace(/^[\s"'“‘(]+|[\s"'”’),:;!?]+$/g, '').replace(/(?<!\b\p{Lu})\.$/u, '');

function emptyScores(): Record<EntityType, number> {
  return { person: 0, company: 0, product: 0, concept: 0, location: 0, event: 0, date: 0 };
}

function endsWithAny(text: string, cues: readonly string[]): boolean {
  return cues.some((cue) => text === cue || text.endsWith(` ${cue}`));
}

/** Whether `text` starts with one of the cues as whole words ("called." and "called by" start with "called"). */
function startsWithAny(text: string, cues: readonly string[]): boolean {
  return cues.some((cue) => text.startsWith(cue) && !/[\p{L}\p{N}'’]/u.test(text.charAt(cue.length)));
}

/** Splits into lines, then sentences, keeping each token's offsets within its sentence text. */
function sentencesOf(nlp: Nlp, text: string): Sentence[] {
  const { wink } = nlp;
  const result: Sentence[] = [];
  for (const [lineIndex, line] of text.split(/\n+/).entries()) {
    const clean = line.replace(/^\s*(?:[-*•>]+|\d+[.)])\s+/, '').trim();
    if (!clean) continue;
    wink.readDoc(clean).sentences().each((sentence) => {
      const values = sentence.tokens().out(wink.its.value);
      const pos = sentence.tokens().out(wink.its.pos);
      const spaces = sentence.tokens().out(wink.its.precedingSpaces);
      let offset = 0;
      let textOut = '';
      const tokens: Token[] = [];
      values.forEach((value, index) => {
        const space = index === 0 ? '' : (spaces[index] ?? '').replace(/\s+/g, ' ');
        textOut += space;
        offset += space.length;
        tokens.push({ text: value, pos: pos[index] ?? 'X', start: offset, end: offset + value.length });
        textOut += value;
        offset += value.length;
      });
      if (textOut.trim()) result.push({ text: textOut, tokens: tokens.filter((token) => token.pos !== 'SPACE'), line: lineIndex });
    });
  }
  return result;
}

function isNameToken(tokens: Token[], index: number, speakers: ReadonlySet<string> = NO_SPEAKERS): boolean {
  const token = tokens[index];
  if (!token) return false;
  const lower = token.text.toLowerCase().replace(/\.$/, '');
  if (!isUpperInitial(token.text) && !/^[A-Z0-9&.-]*[A-Z][A-Z0-9&.-]*$/.test(token.text)) return false;
  if (CLOSED_POS.has(token.pos) && token.pos !== 'PART') return false;
  if (token.pos === 'PART') return false;
  const next = tokens[index + 1];
  // "New York", "San Jose": a common word that starts a place name.
  const prefix = NAME_PREFIXES.has(lower) && next !== undefined && next.pos === 'PROPN' && /^\p{Lu}/u.test(next.text);
  if (NOT_NAMES.has(lower) && !HONORIFICS.has(token.text.toLowerCase()) && !prefix) return false;
  if (/^\d/.test(token.text)) return false;
  // "I'm" comes as one capitalised word.
  if (FIRST_PERSON.test(token.text)) return false;
  // "$3M. Headcount": a unit letter after a number is not an initial.
  if (/^\p{Lu}\.?$/u.test(token.text) && /[\d$€£]$/.test(tokens[index - 1]?.text ?? '')) return false;
  // The first word of a sentence is capitalised anyway: only a proper noun counts there.
  const first = index === 0 || /^[;("“'-]$/.test(tokens[index - 1]?.text ?? '');
  // ...or a word a line of this text opens as its speaker ("Nate: ..."), which the tagger reads as anything.
  if (first && token.pos !== 'PROPN' && !speakers.has(lower)) return false;
  return true;
}

const NO_SPEAKERS: ReadonlySet<string> = new Set();
const ONE_WORD_INTERJECTIONS: ReadonlySet<string> = new Set(INTERJECTIONS.filter((word) => !word.includes(' ')));

/** Candidate names of a sentence: runs of capitalised proper-noun-like tokens. */
interface Chunk {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly first: boolean;
  /** Preceded by a family word ("Uncle Piotr"). */
  readonly kin: boolean;
  readonly tokens: Token[];
}

function chunksOf(sentence: Sentence, speakers: ReadonlySet<string>): Chunk[] {
  const { tokens } = sentence;
  const chunks: Chunk[] = [];
  let index = 0;
  while (index < tokens.length) {
    if (!isNameToken(tokens, index, speakers)) {
      index++;
      continue;
    }
    let end = index;
    for (;;) {
      const current = tokens[end] as Token;
      const closesSentence = /\.$/.test(current.text) && !/^\p{Lu}\.$/u.test(current.text) && !HONORIFICS.has(current.text.toLowerCase());
      if (!closesSentence && isNameToken(tokens, end + 1, speakers)) {
        end++;
        continue;
      }
      if (closesSentence) break;
      // "Al-Sayed": a hyphen with no spaces joins two parts of one name.
      const hyphen = tokens[end + 1];
      const afterHyphen = tokens[end + 2];
      if (hyphen?.text === '-' && afterHyphen && hyphen.start === current.end && afterHyphen.start === hyphen.end && isNameToken(tokens, end + 2, speakers)) {
        end += 2;
        continue;
      }
      const connector = tokens[end + 1]?.text.toLowerCase() ?? '';
      const sofar = tokens.slice(index, end + 1).map((token) => token.text.toLowerCase());
      const institutional = sofar.some((word) => COMPANY_WORDS.has(word) || EVENT_WORDS.has(word) || LOCATION_WORDS.has(word));
      if (CONNECTORS.has(connector) && isNameToken(tokens, end + 2, speakers) && (connector === '&' || connector !== 'of' || institutional)) {
        end += 2;
        continue;
      }
      // An event or product name may end with a number or year: "Web Summit 2026", "Pixel 9".
      const next = tokens[end + 1];
      if (next && /^\d{1,4}$/.test(next.text) && sofar.some((word) => EVENT_WORDS.has(word))) end++;
      break;
    }
    let startToken = index;
    // "Congrats Caroline!", "Hey Mel": the name spoken to, without the greeting that opens the sentence.
    if (startToken < end && ONE_WORD_INTERJECTIONS.has((tokens[startToken]?.text ?? '').toLowerCase())) startToken++;
    const kin = KINSHIP_WORDS.has((tokens[startToken]?.text ?? '').toLowerCase()) && startToken < end;
    if (kin) startToken++;
    // Honorifics belong to the name but never stand alone.
    while (startToken <= end && HONORIFICS.has((tokens[startToken]?.text ?? '').toLowerCase()) && startToken === end) startToken++;
    if (startToken <= end) {
      const first = tokens[startToken] as Token;
      const last = tokens[end] as Token;
      const text = stripEdge(sentence.text.slice(first.start, last.end));
      if (text.length >= 2 || /^\p{Lu}$/u.test(text) === false) {
        if (text.length >= 2) chunks.push({ start: first.start, end: first.start + text.length, text, first: startToken === 0, kin, tokens: tokens.slice(startToken, end + 1) });
      }
    }
    index = end + 1;
  }
  return chunks;
}

interface DateMention {
  readonly text: string;
  readonly iso: string;
  readonly absolute: boolean;
}

/** A month's name or its short form, in a date's words ("September", "14 Dec"). */
const MONTH_WORD = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*';
/** A month named in a date's words ("in September", "14 December"): a date a year can be moved on. */
const NAMED_MONTH = new RegExp(`\\b${MONTH_WORD}\\b`, 'i');
/** A date that names its day or its year ("14 December", "May 3", "2024"), not only a month or a weekday. */
const ABSOLUTE_DATE = new RegExp(`\\b\\d{4}\\b|\\b${MONTH_WORD}\\.?\\s+\\d{1,2}\\b|\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_WORD}`, 'i');

function datesOf(nlp: Nlp, sentence: string, referenceTime: number): DateMention[] {
  const today = new Date(referenceTime).toISOString().slice(0, 10);
  let found: { text: string; dates?: { start?: string } }[] = [];
  let past = false;
  try {
    const doc = nlp.compromise(sentence);
    found = doc.dates({ today }).json();
    past = found.length > 0 && doc.has('#PastTense') && !doc.has('(will|#FutureTense|going to)');
  } catch {
    return [];
  }
  const result: DateMention[] = [];
  for (const entry of found) {
    const start = entry.dates?.start;
    if (!start) continue;
    let text = stripEdge(entry.text.replace(/^(?:on|in|by|for|from|since|at|until|till|before|after|of)\s+/i, '')).replace(/[.,]$/, '');
    // compromise-dates reads on past a date into what follows it ("in October 2025 after four years at
    // Globex"): a date that names its day or year ends there.
    const head = /^(.+?)\s+(?:after|before)\s+/i.exec(text)?.[1];
    if (head !== undefined && ABSOLUTE_DATE.test(head)) text = stripEdge(head).replace(/[.,]$/, '');
    const absolute = ABSOLUTE_DATE.test(text);
    // compromise-dates reads a day or month without a year as the next one; a sentence in the past tense
    // ("Kofi started at Brightline in September", written in November) means the last one.
    let iso = start.slice(0, 10);
    if (past && NAMED_MONTH.test(text) && !/\b\d{4}\b/.test(text) && iso > today) iso = `${Number(iso.slice(0, 4)) - 1}${iso.slice(4)}`;
    result.push({ text, iso, absolute });
  }
  return result;
}

/** Adds type evidence for one mention of a candidate from its words and its context. */
function score(
  candidate: Candidate,
  chunk: { text: string; tokens: Token[]; before: string; after: string; kin: boolean },
  before: string,
  after: string,
  known: KnownSets,
): void {
  const s = candidate.scores;
  const words = chunk.tokens.map((token) => token.text.toLowerCase().replace(/\.$/, ''));
  const last = words[words.length - 1] ?? '';
  const lowerText = normalise(chunk.text);
  const honorific = HONORIFICS.has((before.split(' ').pop() ?? '').toLowerCase()) || HONORIFICS.has(words[0] ?? '');
  if (honorific || chunk.kin) s.person += 6;
  const firstName = known.firstNames.has(words[0] ?? '');
  // compromise calls many capitalised pairs people; trust it when the first word is a known given name.
  if (known.people.has(lowerText)) s.person += firstName || words.length === 1 ? 3 : 1;
  if (firstName && words.length <= 3 && !words.some((word) => COMPANY_WORDS.has(word) || EVENT_WORDS.has(word))) s.person += 2;
  if (known.places.has(lowerText)) s.location += 4;
  if (known.organizations.has(lowerText)) s.company += 3;
  if (COMPANY_SUFFIXES.has(last) || COMPANY_SUFFIXES.has(`${last}.`)) s.company += 6;
  if (words.some((word) => COMPANY_WORDS.has(word))) s.company += 3;
  if (words.some((word) => EVENT_WORDS.has(word)) && words.length >= 2) s.event += 4;
  if (words.length >= 2 && LOCATION_WORDS.has(last)) s.location += 3;
  if (words.length >= 2 && words.length <= 3 && LOCATION_WORDS.has(last) && !LOCATION_WORDS.has(words[0] ?? '') && (startsWithAny(after, PERSON_ONLY_AFTER) || endsWithAny(before, PERSON_ONLY_BEFORE))) {
    candidate.placeWordAgent = true;
  }
  if (words.length >= 2 && PRODUCT_WORDS.has(last)) s.product += 2;
  if (/\b(?:v\d|\d+\.\d+)/.test(after)) s.product += 2;
  if (/^(?:app|platform|api|sdk|dashboard|plugin|release|beta|rollout|integration|feature|launch)\b/.test(after)) s.product += 2;
  if (/^(?:office|offices|headquarters|hq|team|board|stock|shares|account|contract|deal)\b/.test(after.replace(/^['’]s\s*/, ''))) s.company += 1;
  if (/^['’]s\s+(?:ceo|cto|cfo|coo|founder|co-founder|president|board|headquarters|hq|office|offices|revenue|sales|team|engineers|customers|stock|shares|acquisition)\b/.test(after)) s.company += 3;
  if (endsWithAny(before, PERSON_CONTEXT_BEFORE)) s.person += words.length <= 3 ? 1.5 : 0;
  if (startsWithAny(after, PERSON_CONTEXT_AFTER)) s.person += words.length <= 3 ? 1.5 : 0;
  // "Priya Raman from Acme Corp": a two- or three-word name from a named organisation or place is someone.
  if (words.length >= 2 && words.length <= 3 && /^from\s+(?:the\s+)?\p{Lu}/u.test(chunk.after)) s.person += 1.5;
  // "David Okafor from Globex": the organisation someone is from.
  if (/\p{Lu}[\p{L}.'’-]+\s+(?:from|of|at|joined|joins|(?:works|worked|working)\s+(?:at|for))$/u.test(chunk.before) && !endsWithAny(before, LOCATION_CONTEXT_BEFORE.filter((cue) => cue.includes(' ')))) s.company += 2.5;
  if (endsWithAny(before, COMPANY_CONTEXT_BEFORE)) s.company += 2;
  // A name set beside an employer noun is that company: "her company, Initech,", "his employer is Globex".
  if (EMPLOYER_BEFORE_RE.test(before)) s.company += 3;
  if (BEFORE_TITLE_RE.test(before)) s.company += 3;
  if (AFTER_TITLE_RE.test(after)) s.company += 3;
  if (/^(?:is|was|are)\s+(?:based|headquartered|located)\b/.test(after)) s.company += 1;
  if (APPOSITION_ROLE_RE.test(after)) s.person += 3;
  if (endsWithAny(before, LOCATION_CONTEXT_BEFORE)) s.location += before.endsWith(' in') || before === 'in' ? 1 : 1.5;
  // "moved to Lisbon" is a place; "moved to Tidal Robotics" a new employer: a name that says it is an
  // organisation keeps that over the verb's place cue.
  const organisationWords = words.some((word) => COMPANY_WORDS.has(word)) || COMPANY_SUFFIXES.has(last) || COMPANY_SUFFIXES.has(`${last}.`);
  if (/(?:based|headquartered|located|lives|living|moved|relocated|born|office|offices)\s+(?:in|to)$/.test(before) && !organisationWords) s.location += 2;
  if (endsWithAny(before, EVENT_CONTEXT_BEFORE)) s.event += 1.5;
  if (endsWithAny(before, PRODUCT_CONTEXT_BEFORE)) s.product += 2;
  if (/^,\s*(?:[A-Z][a-z]+|the\s+capital)/.test(after) && known.places.has(lowerText)) s.location += 1;
  // Two or three capitalised words with no other cue read as a person's name.
  if (words.length >= 2 && words.length <= 3 && chunk.tokens.every((token) => /^\p{Lu}[\p{Ll}'’-]+$/u.test(token.text))) s.person += 1;
  if (words.length === 2 && /^\p{Lu}\.$/u.test(chunk.tokens[0]?.text ?? '')) s.person += 3;
  if (chunk.tokens.length === 1 && /^[A-Z]{2,6}$/.test(chunk.text)) s.company += 0.5;
}

interface KnownSets {
  /** Given names compromise knows ("Olivia"), lower case. */
  readonly firstNames: Set<string>;
  /** First words of the people who speak a line of the text ("Nate: ..."), lower case. */
  readonly speakers: Set<string>;
  readonly people: Set<string>;
  readonly places: Set<string>;
  readonly organizations: Set<string>;
}

function knownSets(nlp: Nlp, text: string): KnownSets {
  const doc = nlp.compromise(text);
  const set = (items: string[]) => {
    const result = new Set<string>();
    for (const item of items) {
      const clean = normalise(stripEdge(item));
      if (!clean) continue;
      result.add(clean);
      // "Austin, Texas" names two places.
      if (/,/.test(item)) for (const part of item.split(',')) if (normalise(part)) result.add(normalise(stripEdge(part)));
      const honorless = clean.replace(/^(?:mr|mrs|ms|dr|prof)\s+/, '');
      result.add(honorless);
    }
    return result;
  };
  const known = {
    people: set(doc.people().out('array')),
    places: set(doc.places().out('array')),
    organizations: set(doc.organizations().out('array')),
    firstNames: new Set(doc.match('#FirstName').out('array').map((name) => normalise(name))),
    speakers: new Set<string>(),
  };
  for (const label of speakerLabels(nlp, text)) {
    known.people.add(label);
    const first = label.split(' ')[0] as string;
    known.firstNames.add(first);
    known.speakers.add(first);
  }
  return known;
}

/** A line that opens with one to three capitalised words and a colon: "Nate: ...", "Priya Patel: ...". */
const SPEAKER_LABEL = /^[\t ]*(\p{Lu}[\p{L}'’-]*(?:[\t ]+\p{Lu}[\p{L}'’-]*){0,2})[\t ]*:[\t ]*\S/gmu;

/**
 * The labels of the lines of a chat or a transcript that are people's names. At a line's start the tagger
 * reads a name as anything ("Nate:" as an expression), and "Note:", "Summary:" or "Action items:" open lines
 * the same way; so each label is read where only a person fits, "I met <label> yesterday.", and counts
 * when the tagger finds a person there in every word of it.
 */
function speakerLabels(nlp: Nlp, text: string): Set<string> {
  const labels = new Set<string>();
  for (const match of text.matchAll(SPEAKER_LABEL)) {
    const raw = match[1] as string;
    const label = normalise(raw);
    if (!label || labels.has(label) || NOT_NAMES.has(label)) continue;
    let person = speakerVerdicts.get(raw);
    if (person === undefined) {
      person = nlp.compromise(`I met ${raw} yesterday.`).people().out('array').map((name) => normalise(name)).join(' ') === label;
      // A chat names the same few speakers line after line: each is read once. Bounded, for long-lived threads.
      if (speakerVerdicts.size >= SPEAKER_VERDICTS_MAX) speakerVerdicts.clear();
      speakerVerdicts.set(raw, person);
    }
    if (person) labels.add(label);
  }
  return labels;
}

/**
 * The words after "I" as they read after a name, so the patterns written for "Nate works at" also read "I
 * work at": "am" / "'m" is "is", "have" / "'ve" is "has", and a present-tense verb opening the words (after
 * an adverb such as "now" or "also") takes its "s".
 */
function thirdPerson(pronoun: string, words: string): string {
  // The tokenizer keeps "I'm" and "I'd" whole, and splits "I've" ("I" "'ve").
  const between = /['’]m$/i.test(pronoun) ? ` am${words}` : /['’]ve$/i.test(pronoun) ? ` have${words}` : words;
  return between
    .replace(/^\s*(?:am|['’]m)\b/, ' is')
    .replace(/^\s*(?:have|['’]ve)\b/, ' has')
    .replace(/^(\s*(?:(?:now|currently|still|also|just|recently|officially|finally)\s+)?)(work|live|lead|run|manage|head|own|join|move|report)\b/, (_, lead: string, verb: string) => `${lead}${verb}s`);
}

/** The person who speaks each line that opens with a name and a colon, by line. */
function speakersOf(sentences: readonly Sentence[], mentions: readonly Mention[], entities: ReadonlyMap<string, Entity>): Map<number, { key: string; entity: Entity }> {
  const speakers = new Map<number, { key: string; entity: Entity }>();
  for (const mention of mentions) {
    const sentence = sentences[mention.sentence];
    const entity = entities.get(mention.key);
    if (!sentence || !entity || entity.type !== 'person' || mention.start !== 0) continue;
    if (mention.sentence > 0 && sentences[mention.sentence - 1]?.line === sentence.line) continue; // not the line's start
    if (!sentence.text.slice(mention.end).trimStart().startsWith(':')) continue;
    speakers.set(sentence.line, { key: mention.key, entity });
  }
  return speakers;
}

/** "I" and its contractions, which the tokenizer may keep as one word ("I'm"). */
const FIRST_PERSON = /^I(?:['’](?:m|d|ll|ve))?$/;

const SPEAKER_VERDICTS_MAX = 10_000;
const speakerVerdicts = new Map<string, boolean>();

function bestType(scores: Record<EntityType, number>): { type: EntityType; score: number } {
  let best: EntityType = 'concept';
  let value = 0;
  for (const type of ['person', 'company', 'location', 'event', 'product'] as const) {
    if (scores[type] > value) {
      best = type;
      value = scores[type];
    }
  }
  return { type: best, score: value };
}

interface Entity {
  readonly key: string;
  name: string;
  readonly type: EntityType;
  readonly names: Set<string>;
  mentions: number;
  readonly properties: Record<string, string | number | boolean>;
}

interface FactDraft {
  readonly subject: string;
  readonly object: string;
  readonly predicate: string;
  readonly category: FactCategory;
  readonly confidence: number;
  readonly statement: string;
  readonly sentence: number;
  readonly validFrom?: string | undefined;
  readonly relationship?: { source: string; target: string; relationship: string } | undefined;
}

const CHANGE_WORDS = /\b(?:joined|joins|joining|became|becomes|become|promoted|appointed|named|hired|moved|moves|relocated|relocating|acquired|acquires|founded|since|as of|starting|started|starts|effective|takes over|took over)\b/i;

/** A thread with no extraction to do for this long stops (the next extraction starts it again in ~0.3 s). */
const DEFAULT_IDLE_MS = 60_000;

export interface BuiltinExtractorOptions {
  /**
   * Extract in a worker thread (the daemon does): the NLP libraries' memory is given back when the
   * thread stops after `idleMs` without work, and their CPU time stays off the event loop.
   */
  readonly thread?: boolean;
  readonly idleMs?: number;
}

export class BuiltinExtractor implements Extractor {
  readonly provider = 'builtin';
  readonly modelId = 'builtin/rules-v1';
  readonly inline = true;
  private readonly thread: ExtractionThread | null;

  constructor(options: BuiltinExtractorOptions = {}) {
    this.thread = options.thread ? new ExtractionThread(options.idleMs ?? DEFAULT_IDLE_MS) : null;
  }

  /** Whether extraction runs in a thread that is up now (false in-process). */
  get threadRunning(): boolean {
    return this.thread?.running ?? false;
  }

  /** Loads the NLP libraries now instead of on the first extraction. */
  async init(): Promise<void> {
    if (this.thread) await this.thread.start();
    else await loadNlp();
  }

  async extract(request: ExtractRequest): Promise<Extraction> {
    if (this.thread) return this.thread.extract(request.text, request.referenceTime, request.priority);
    return extractInThisThread(request.text, request.referenceTime);
  }

  async close(): Promise<void> {
    await this.thread?.close();
  }
}

/** The NLP libraries, loaded in the calling thread (the extraction worker calls it at its start). */
export async function loadExtractorNlp(): Promise<void> {
  await loadNlp();
}

/** One extraction in the calling thread. */
export async function extractInThisThread(text: string, referenceTime: number): Promise<Extraction> {
  return extractWith(await loadNlp(), text, referenceTime);
}

function extractWith(nlp: Nlp, text: string, referenceTime: number): Extraction {
  const sentences = sentencesOf(nlp, text);
  const known = knownSets(nlp, text);

  // 1. Candidate names and their type evidence over the whole text.
  const candidates = new Map<string, Candidate>();
  const rawMentions: Mention[] = [];
  let order = 0;
  sentences.forEach((sentence, sentenceIndex) => {
    for (const chunk of chunksOf(sentence, known.speakers)) {
      const key = core(chunk.text);
      if (!key || key.length < 2 || NOT_NAMES.has(key)) continue;
      const candidate = candidates.get(key) ?? {
        key,
        names: new Map<string, number>(),
        scores: emptyScores(),
        mentions: 0,
        firstIndex: order++,
        sentenceInitialOnly: true,
        placeWordAgent: false,
      };
      candidate.names.set(chunk.text, (candidate.names.get(chunk.text) ?? 0) + 1);
      candidate.mentions++;
      if (!chunk.first) candidate.sentenceInitialOnly = false;
      const before = sentence.text.slice(Math.max(0, chunk.start - 40), chunk.start).toLowerCase().replace(/\s+/g, ' ').trim();
      const after = sentence.text.slice(chunk.end, chunk.end + 40).toLowerCase().replace(/\s+/g, ' ').trim();
      const context = {
        ...chunk,
        before: sentence.text.slice(Math.max(0, chunk.start - 40), chunk.start).trimEnd(),
        after: sentence.text.slice(chunk.end, chunk.end + 40).trimStart(),
      };
      score(candidate, context, before, after, known);
      candidates.set(key, candidate);
      rawMentions.push({ key, text: chunk.text, start: chunk.start, end: chunk.end, sentence: sentenceIndex });
    }
  });

  // 2. Types; weak or sentence-initial-only names without evidence are dropped (precision first).
  const typed = new Map<string, { candidate: Candidate; type: EntityType }>();
  for (const candidate of candidates.values()) {
    const best = bestType(candidate.scores);
    // The place word made it a place; what it does makes it someone (a hard rule, not more evidence: its
    // other mentions may say nothing).
    const { type, score: value } = best.type === 'location' && candidate.placeWordAgent ? { type: 'person' as const, score: best.score } : best;
    if (value >= 1.5) typed.set(candidate.key, { candidate, type });
  }

  // 3. Aliases within the text: "Sarah" and "S. Chen" join "Sarah Chen" when exactly one full name fits;
  //    "Northwind" joins "Northwind Traders"; "Acme" and "ACME" join "Acme Corp"; "IBM" joins
  //    "International Business Machines". A short form takes the type of the name it joins, so a bare
  //    company name at the start of a sentence ("Northwind wants...") is not mistaken for a person.
  const groupOf = new Map<string, string>();
  const typeOf = (candidate: Candidate) => typed.get(candidate.key)?.type;
  const all = [...candidates.values()].sort(
    (a, b) => b.key.split(' ').length - a.key.split(' ').length || a.firstIndex - b.firstIndex,
  );
  for (const candidate of all) {
    const words = candidate.key.split(' ');
    const longer = all.filter((other) => other.key !== candidate.key && !groupOf.has(other.key) && typeOf(other) !== undefined && other.key.split(' ').length > words.length);
    let fits: Candidate[] = [];
    if (words.length === 1) {
      const word = words[0] as string;
      fits = longer.filter((other) => {
        const parts = other.key.split(' ');
        const type = typeOf(other);
        return parts[0] === word || (type === 'person' && parts[parts.length - 1] === word) || (type !== 'person' && acronymOf(other.key) === word);
      });
    }
    const type = typeOf(candidate);
    if (fits.length === 0 && type !== undefined) {
      fits = all.filter(
        (other) =>
          other.key !== candidate.key &&
          !groupOf.has(other.key) &&
          typeOf(other) !== undefined &&
          (typeOf(other) === type || (type !== 'person' && typeOf(other) !== 'person')) &&
          other.key.split(' ').length >= words.length &&
          other.firstIndex !== candidate.firstIndex &&
          nameMatch(bestName(candidate), bestName(other), typeOf(other) as EntityType) > 0 &&
          !(other.key.split(' ').length === words.length && other.firstIndex > candidate.firstIndex),
      );
    }
    if (fits.length === 1) groupOf.set(candidate.key, (fits[0] as Candidate).key);
  }
  const root = (key: string): string => {
    let current = key;
    for (let i = 0; i < 5 && groupOf.has(current); i++) current = groupOf.get(current) as string;
    return current;
  };
  const entities = new Map<string, Entity>();
  for (const candidate of all) {
    const key = root(candidate.key);
    const rootType = typed.get(key)?.type;
    if (rootType === undefined) continue;
    const entity = entities.get(key) ?? { key, name: '', type: rootType, names: new Set<string>(), mentions: 0, properties: {} };
    for (const name of candidate.names.keys()) entity.names.add(name);
    entity.mentions += candidate.mentions;
    entities.set(key, entity);
  }
  for (const entity of entities.values()) {
    entity.name = [...entity.names].sort((a, b) => nameQuality(b, entity.type) - nameQuality(a, entity.type) || (a < b ? -1 : 1))[0] ?? entity.key;
  }
  const mentions = rawMentions.map((mention) => ({ ...mention, key: root(mention.key) })).filter((mention) => entities.has(mention.key));

  // 4. Dates.
  const sentenceDates = sentences.map((sentence) => datesOf(nlp, sentence.text, referenceTime));
  sentenceDates.forEach((dates, sentenceIndex) => {
    const sentence = sentences[sentenceIndex] as Sentence;
    for (const date of dates) {
      if (!date.absolute) continue;
      const key = `date:${date.iso}`;
      const entity = entities.get(key) ?? { key, name: date.text, type: 'date' as const, names: new Set<string>(), mentions: 0, properties: { date: date.iso } };
      entity.names.add(date.text);
      entity.mentions++;
      entities.set(key, entity);
      const start = sentence.text.indexOf(date.text);
      if (start >= 0) mentions.push({ key, text: date.text, start, end: start + date.text.length, sentence: sentenceIndex });
    }
  });

  // 5. Pronouns that stand for a named person or company (coreference.ts).
  const bySentence = sentences.map((_, index) => mentions.filter((mention) => mention.sentence === index).sort((a, b) => a.start - b.start));
  const named = mentions.map((mention) => ({ ...mention, type: (entities.get(mention.key) as Entity).type }));
  for (const pronoun of resolvePronouns(sentences, named)) {
    (bySentence[pronoun.sentence] as Mention[]).push({ ...pronoun, pronoun: true });
    const entity = entities.get(pronoun.key);
    if (entity) entity.mentions++;
  }
  // "I" on a line a person speaks ("Nate: I moved to Boston") is that person.
  const speakerOfLine = speakersOf(sentences, mentions, entities);
  sentences.forEach((sentence, index) => {
    const speaker = speakerOfLine.get(sentence.line);
    if (!speaker) return;
    for (const token of sentence.tokens) {
      if (!FIRST_PERSON.test(token.text) || (token.text === 'I' && token.pos !== 'PRON')) continue;
      (bySentence[index] as Mention[]).push({ key: speaker.key, text: token.text, start: token.start, end: token.end, sentence: index, pronoun: true });
      speaker.entity.mentions++;
    }
  });
  for (const list of bySentence) list.sort((a, b) => a.start - b.start);

  // 6. Facts and relationships from sentence patterns.
  const drafts: FactDraft[] = [];
  const relationships: ExtractedRelationship[] = [];
  let currentCompany: string | undefined;
  sentences.forEach((sentence, index) => {
    const list = bySentence[index] as Mention[];
    const changeDate = CHANGE_WORDS.test(sentence.text) ? sentenceDates[index]?.[0]?.iso : undefined;
    const related = new Set<string>();
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i] as Mention;
        const b = list[j] as Mention;
        // A pronoun is the subject of what follows it, never the object of a relation.
        if (a.key === b.key || b.start < a.end || b.pronoun) continue;
        const ea = entities.get(a.key) as Entity;
        const eb = entities.get(b.key) as Entity;
        // The words between the two names, other names replaced by their type ("and ⟨person⟩ from").
        let between = '';
        let cursor = a.end;
        for (const inner of list) {
          if (inner.start < a.end || inner.end > b.start || inner === a || inner === b || inner.pronoun) continue;
          if (inner.start < cursor) continue;
          between += sentence.text.slice(cursor, inner.start) + `⟨${entities.get(inner.key)?.type ?? 'thing'}⟩`;
          cursor = inner.end;
        }
        between = (between + sentence.text.slice(cursor, b.start)).toLowerCase().replace(/\s+/g, ' ');
        const after = sentence.text.slice(b.end).toLowerCase();
        // Also read past an apposition ("X, the CEO of Y, will attend Z"), a relative pronoun ("X, who
        // founded Y") and, for the sentence's subject, to the last clause ("X left Y and joined Z").
        const variants = new Set([between]);
        variants.add(between.replace(/^,[^,]*,\s*/, ' '));
        variants.add(between.replace(/^,?\s*(?:who|which|that)\s+/, ' '));
        const subject = list.find((mention) => entities.get(mention.key)?.type !== 'date');
        if (subject === a && / and /.test(between)) variants.add(` ${between.slice(between.lastIndexOf(' and ') + 5)}`);
        // "she's the CFO of", "he's joined": the contraction is "is" or "has".
        if (a.pronoun && /^['’]s\s/.test(between)) for (const verb of ['is', 'has']) variants.add(` ${verb}${between.slice(2)}`);
        // A speaker's "I" ("I work at Globex", "I'm the CFO of"): the same words as said of someone else.
        if (a.pronoun && FIRST_PERSON.test(a.text)) for (const variant of [...variants]) variants.add(thirdPerson(a.text, variant));
        for (const variant of variants) {
          const found = patterns(ea, eb, variant, after, index, changeDate, sentenceDates[index] ?? []);
          if (found.length === 0) continue;
          for (const draft of found) drafts.push(a.pronoun ? { ...draft, confidence: Math.round(draft.confidence * PRONOUN_CONFIDENCE * 100) / 100 } : draft);
          related.add(`${a.key}|${b.key}`);
          related.add(`${b.key}|${a.key}`);
          break;
        }
      }
    }
    // Metrics: "revenue grew 20% to $3M" about the company the sentence (or the text so far) is about.
    for (const metric of metricsOf(sentence.text)) {
      // The company or product named before the metric in this sentence, else the one the text is about;
      // never when the writer speaks of their own ("our runway").
      if (/\b(?:our|my|we)\s+(?:\w+\s+){0,2}$/i.test(sentence.text.slice(0, metric.index))) continue;
      const company =
        list.filter((mention) => mention.start < metric.index && ['company', 'product'].includes(entities.get(mention.key)?.type ?? '')).pop()?.key ??
        currentCompany;
      if (!company) continue;
      const entity = entities.get(company) as Entity;
      drafts.push({
        subject: entity.key,
        object: metric.value,
        predicate: metric.name.toUpperCase().replace(/[^A-Z0-9]+/g, '_'),
        category: 'metric',
        confidence: list.some((mention) => mention.key === company) ? 0.85 : 0.75,
        statement: `${entity.name} ${metric.name} ${metric.phrase}`,
        sentence: index,
        validFrom: sentenceDates[index]?.[0]?.iso,
      });
    }
    for (const mention of list) if (entities.get(mention.key)?.type === 'company') currentCompany = mention.key;
    // Names in one sentence with no stated relation are still related, weakly.
    const named = [...new Set(list.filter((mention) => entities.get(mention.key)?.type !== 'date').map((mention) => mention.key))];
    for (let i = 0; i < named.length; i++) {
      for (let j = i + 1; j < named.length; j++) {
        const a = named[i] as string;
        const b = named[j] as string;
        if (!related.has(`${a}|${b}`)) relationships.push({ source: a, target: b, relationship: 'RELATED_TO', confidence: 0.3 });
      }
    }
  });

  // 7. Output, with entity keys replaced by names.
  const nameOf = (key: string) => entities.get(key)?.name ?? key;
  const facts: ExtractedFact[] = [];
  const seen = new Set<string>();
  for (const draft of drafts) {
    if (draft.predicate === 'TITLE') {
      const entity = entities.get(draft.subject);
      if (entity) entity.properties.title = draft.object;
      continue;
    }
    if (draft.relationship) {
      relationships.push({
        source: draft.relationship.source,
        target: draft.relationship.target,
        relationship: draft.relationship.relationship,
        confidence: draft.confidence,
      });
    }
    if (draft.category === 'relationship' && draft.predicate === 'RELATED_TO') continue;
    const subjectEntity = entities.get(draft.subject);
    const objectIsEntity = entities.has(draft.object) && entities.get(draft.object)?.type !== 'date';
    const object = objectIsEntity ? nameOf(draft.object) : entities.get(draft.object)?.properties.date?.toString() ?? draft.object;
    const key = `${draft.subject}|${draft.predicate}|${object}`;
    if (!subjectEntity || seen.has(key)) continue;
    seen.add(key);
    facts.push({
      statement: draft.statement,
      subject: subjectEntity.name,
      predicate: draft.predicate,
      object,
      category: draft.category,
      confidence: draft.confidence,
      excerpt: (sentences[draft.sentence] as Sentence).text.trim(),
      ...(draft.validFrom ? { validFrom: draft.validFrom } : {}),
    });
  }
  const result: ExtractedEntity[] = [...entities.values()].map((entity) => ({
    name: entity.name,
    type: entity.type,
    aliases: [...entity.names].filter((name) => name !== entity.name),
    properties: entity.properties,
    mentions: Math.max(1, entity.mentions),
  }));
  const edges = new Map<string, ExtractedRelationship>();
  for (const relationship of relationships) {
    const source = nameOf(relationship.source);
    const target = nameOf(relationship.target);
    const key = `${source}|${target}|${relationship.relationship}`;
    const previous = edges.get(key);
    if (!previous || previous.confidence < relationship.confidence) edges.set(key, { ...relationship, source, target });
  }
  return { entities: result, facts, relationships: [...edges.values()] };
}

function acronymOf(key: string): string {
  const words = key.split(' ').filter((word) => word !== 'and' && word !== 'of');
  return words.length >= 2 ? words.map((word) => word[0] ?? '').join('') : '';
}

function bestName(candidate: Candidate): string {
  return [...candidate.names.entries()].sort(
    ([a, x], [b, y]) => b.replace(/[^\p{L}]/gu, '').length - a.replace(/[^\p{L}]/gu, '').length || y - x || (a < b ? -1 : 1),
  )[0]?.[0] ?? candidate.key;
}

const T = (type: EntityType, ...types: EntityType[]) => types.includes(type);

/** Facts stated between mention a and a later mention b of one sentence. */
function patterns(a: Entity, b: Entity, between: string, after: string, sentence: number, changeDate: string | undefined, dates: DateMention[]): FactDraft[] {
  const out: FactDraft[] = [];
  const fact = (
    subject: Entity,
    object: Entity,
    predicate: string,
    category: FactCategory,
    confidence: number,
    statement: string,
    relationship?: string,
    validFrom?: string,
  ) =>
    out.push({
      subject: subject.key,
      object: object.key,
      predicate,
      category,
      confidence,
      statement,
      sentence,
      validFrom,
      ...(relationship ? { relationship: { source: subject.key, target: object.key, relationship } } : {}),
    });
  const short = between.length <= 80;
  if (!short) return out;

  if (a.type === 'person' && T(b.type, 'company', 'product', 'event')) {
    const role = PERSON_ROLE_RE.exec(between);
    if (role && b.type === 'company' && !/former|ex-/.test(between)) {
      const title = (role[1] ?? '').replace(/\s+/g, ' ');
      const predicate = ROLE_TITLES[title] ?? 'ROLE_AT';
      fact(a, b, predicate, 'role', 0.9, `${a.name} is the ${title.length <= 4 ? title.toUpperCase() : title} of ${b.name}`, predicate, changeDate);
      out.push({ subject: a.key, object: title.length <= 4 ? title.toUpperCase() : title, predicate: 'TITLE', category: 'attribute', confidence: 1, statement: '', sentence });
      return out;
    }
    const job = PERSON_JOB_RE.exec(between);
    if (job && b.type === 'company' && !/former|ex-|used to/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.85, `${a.name} works at ${b.name}`, 'WORKS_AT', changeDate);
      return out;
    }
    if (b.type === 'company' && /^\s*(?:now\s+|currently\s+|still\s+|also\s+)?(?:works|worked|is\s+working|has\s+worked|started\s+working|began\s+working|will\s+work|works\s+full-time)\s+(?:at|for)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.9, `${a.name} works at ${b.name}`, 'WORKS_AT', changeDate);
      return out;
    }
    if (b.type === 'company' && /^\s*(?:has\s+|had\s+|just\s+|recently\s+|officially\s+|finally\s+|will\s+)?(?:joined|joins|join|is\s+joining|signed\s+with|accepted\s+an\s+offer\s+from|moved\s+to|is\s+moving\s+to|went\s+to)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.85, `${a.name} works at ${b.name}`, 'WORKS_AT', changeDate ?? dates[0]?.iso);
      return out;
    }
    // "moved to Lisbon to join Oceanic Labs", "left Google to join Meta": a move made to work there (not
    // "wants to join", "hopes to work for": those are plans).
    if (b.type === 'company' && !between.includes('⟨person⟩') && /\b(?:moved|relocated|left|quit|came|returned|went|headed)\b.*\bto\s+(?:join|work\s+(?:at|for))\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.8, `${a.name} works at ${b.name}`, 'WORKS_AT', changeDate ?? dates[0]?.iso);
      return out;
    }
    if (b.type === 'company' && /^\s*(?:now\s+|currently\s+)?(?:leads|led|runs|ran|manages|heads|is\s+on|works\s+on|joined)\s+(?:the\s+)?(?:[a-z-]+\s+){0,3}(?:team|group|department|org|organization|division|unit)\s+(?:at|of|in)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.8, `${a.name} works at ${b.name}`, 'WORKS_AT');
      return out;
    }
    if (b.type === 'company' && /^\s*(?:starts|started|will\s+start|is\s+starting|begins|began|took|accepted|got)\s+(?:her|his|their|a|the)\s+(?:new\s+)?(?:job|role|position|internship)\s+(?:at|with)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.85, `${a.name} works at ${b.name}`, 'WORKS_AT', changeDate ?? dates[0]?.iso);
      return out;
    }
    if (b.type === 'company' && /^\s*and\s+⟨person⟩\s+(?:\(|,\s*)?(?:from|of)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.7, `${a.name} works at ${b.name}`, 'WORKS_AT');
      return out;
    }
    if (b.type === 'company' && /^\s*(?:,\s*)?(?:from|of)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.7, `${a.name} works at ${b.name}`, 'WORKS_AT');
      return out;
    }
    if (b.type === 'company' && /^\s*\(\s*$/.test(between) && /^\s*\)/.test(after)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.7, `${a.name} works at ${b.name}`, 'WORKS_AT');
      return out;
    }
    // "Ana Lopez's company, Acme Corp", "her employer is Acme Corp" (never "her old company").
    if (b.type === 'company' && EMPLOYER_RE.test(between)) {
      fact(a, b, 'WORKS_AT', 'relationship', 0.75, `${a.name} works at ${b.name}`, 'WORKS_AT');
      return out;
    }
    if (b.type === 'company' && /^\s*(?:co-?founded|founded|started)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'FOUNDER_OF', 'role', 0.85, `${a.name} founded ${b.name}`, 'FOUNDER_OF', dates[0]?.iso);
      return out;
    }
  }
  if (T(a.type, 'person', 'company') && b.type === 'event') {
    const involved = /^\s*(?:will\s+|is\s+going\s+to\s+|is\s+|are\s+|was\s+|were\s+|has\s+|have\s+|also\s+|just\s+|both\s+)*(?:attend|attended|attending|speak\s+at|spoke\s+at|speaking\s+at|present\s+at|presented\s+at|presenting\s+at|organize|organized|organizing|organise|organised|organising|sponsor|sponsored|sponsoring|host|hosted|hosting|keynote|keynoted|run|ran|running|lead|led|leading|exhibit\s+at|exhibited\s+at|exhibiting\s+at|went\s+to|going\s+to|registered\s+for|signed\s+up\s+for|judged|judging|demoed\s+at|pitched\s+at|booked\s+a\s+booth\s+at|has\s+a\s+booth\s+at)\s+(?:the\s+)?$/.exec(between);
    if (involved) {
      fact(a, b, 'INVOLVED_IN', 'event', 0.85, `${a.name} is involved in ${b.name}`, 'INVOLVED_IN');
      return out;
    }
  }
  if (T(a.type, 'company', 'person', 'event', 'product') && b.type === 'location') {
    if (/^\s*(?:is\s+|was\s+|are\s+|were\s+|has\s+been\s+|remains\s+|is\s+now\s+|now\s+)?(?:based|headquartered|located|situated|hq['’]?d)\s+(?:in|out\s+of)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'LOCATED_IN', 'attribute', 0.9, `${a.name} is located in ${b.name}`, 'LOCATED_IN', changeDate);
      return out;
    }
    if (a.type === 'company' && /^\s*(?:has\s+|just\s+|recently\s+|will\s+|is\s+)?(?:moved|moving|relocated|relocating|move|relocate)\s+(?:its\s+|their\s+)?(?:headquarters|hq|head\s+office|main\s+office|offices?)\s+to\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'LOCATED_IN', 'attribute', 0.85, `${a.name} is located in ${b.name}`, 'LOCATED_IN', changeDate ?? dates[0]?.iso);
      return out;
    }
    if (a.type === 'company' && /^['’]s\s+(?:headquarters|hq|head\s+office|main\s+office)\s+(?:is\s+|are\s+)?in\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'LOCATED_IN', 'attribute', 0.85, `${a.name} is located in ${b.name}`, 'LOCATED_IN');
      return out;
    }
    if (a.type === 'person' && /^\s*(?:now\s+|still\s+|currently\s+)?(?:lives|lived|is\s+living|has\s+lived)\s+in\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'LIVES_IN', 'attribute', 0.85, `${a.name} lives in ${b.name}`, 'LOCATED_IN');
      return out;
    }
    if (a.type === 'person' && /^\s*(?:has\s+|just\s+|recently\s+|finally\s+|will\s+|is\s+)?(?:moved|moving|relocated|relocating|move|relocate)\s+(?:back\s+)?(?:from\s+(?:the\s+)?⟨location⟩\s+)?to\s+(?:the\s+)?$/.test(between)) {
      // "moved to Lisbon", "moved from Seattle to Lisbon": where they live now is where they moved to. A move
      // still to come ("will move to", "is moving to") is a fact only with its day: validity is read from it
      // ("is moving to Oslo next year" holds from then); without one it is a plan, not where they live.
      const planned = /\b(?:will\s+|is\s+)?(?:moving|relocating)\b|\bwill\s+(?:move|relocate)\b/.test(between);
      if (planned && changeDate === undefined && dates.length === 0) return out;
      fact(a, b, 'LIVES_IN', 'attribute', 0.8, `${a.name} lives in ${b.name}`, 'LOCATED_IN', changeDate ?? dates[0]?.iso);
      return out;
    }
    if (a.type === 'event' && /^\s*(?:is\s+|was\s+|will\s+be\s+)?(?:held\s+|hosted\s+|happening\s+|taking\s+place\s+|took\s+place\s+)?in\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'LOCATED_IN', 'attribute', 0.8, `${a.name} takes place in ${b.name}`, 'LOCATED_IN');
      return out;
    }
    if (a.type === 'company' && /^['’]s\s+(?:new\s+)?(?:office|offices|branch|lab|site|store|plant|factory|warehouse|campus)\s+in\s+(?:the\s+)?$/.test(between)) {
      out.push({ subject: a.key, object: b.key, predicate: 'RELATED_TO', category: 'relationship', confidence: 0.6, statement: '', sentence, relationship: { source: a.key, target: b.key, relationship: 'LOCATED_IN' } });
      return out;
    }
  }
  if (a.type === 'location' && b.type === 'location' && /^\s*,\s*$/.test(between)) {
    fact(a, b, 'LOCATED_IN', 'attribute', 0.8, `${a.name} is in ${b.name}`, 'LOCATED_IN');
    return out;
  }
  if (a.type === 'location' && b.type === 'location' && /^\s*(?:is\s+|was\s+)?in\s+(?:the\s+)?$/.test(between)) {
    fact(a, b, 'LOCATED_IN', 'attribute', 0.75, `${a.name} is in ${b.name}`, 'LOCATED_IN');
    return out;
  }
  if (T(a.type, 'company', 'product') && T(b.type, 'company')) {
    if (/^\s*(?:,\s*)?(?:is\s+|was\s+|which\s+is\s+|now\s+|became\s+)*(?:a\s+|an\s+|the\s+)?(?:part|division|subsidiary|unit|branch|arm|brand|spin-?off|business\s+unit)\s+of\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'PART_OF', 'relationship', 0.85, `${a.name} is part of ${b.name}`, 'PART_OF', changeDate);
      return out;
    }
    if (a.type === 'company' && /^\s*(?:has\s+|just\s+|recently\s+|officially\s+|finally\s+|will\s+|is\s+)?(?:acquired|bought|purchased|acquires|buys|acquire|acquiring|agreed\s+to\s+acquire|agreed\s+to\s+buy|completed\s+(?:the|its)\s+acquisition\s+of|closed\s+(?:the|its)\s+acquisition\s+of)\s+(?:the\s+)?$/.test(between)) {
      const when = changeDate ?? dates[0]?.iso;
      fact(a, b, 'ACQUIRED', 'event', 0.85, `${a.name} acquired ${b.name}`, undefined, when);
      fact(b, a, 'PART_OF', 'relationship', 0.8, `${b.name} is part of ${a.name}`, 'PART_OF', when);
      return out;
    }
    if (/^\s*(?:was\s+|has\s+been\s+|is\s+being\s+|will\s+be\s+|got\s+)?(?:acquired|bought|purchased)\s+by\s+(?:the\s+)?$/.test(between)) {
      const when = changeDate ?? dates[0]?.iso;
      fact(b, a, 'ACQUIRED', 'event', 0.85, `${b.name} acquired ${a.name}`, undefined, when);
      fact(a, b, 'PART_OF', 'relationship', 0.8, `${a.name} is part of ${b.name}`, 'PART_OF', when);
      return out;
    }
  }
  if (a.type === 'company' && b.type === 'product' && /^\s*(?:has\s+|just\s+|will\s+|is\s+|recently\s+|finally\s+)?(?:launched|launches|launching|released|releases|releasing|shipped|ships|unveiled|announced|introduced|will\s+launch|is\s+launching|makes|built|builds|develops|developed)\s+(?:the\s+|its\s+|their\s+|a\s+)?(?:new\s+)?$/.test(between)) {
    fact(a, b, 'LAUNCHED', 'event', 0.8, `${a.name} launched ${b.name}`, undefined, dates[0]?.iso);
    out.push({ subject: b.key, object: a.key, predicate: 'RELATED_TO', category: 'relationship', confidence: 0.8, statement: '', sentence, relationship: { source: b.key, target: a.key, relationship: 'PART_OF' } });
    return out;
  }
  if (a.type === 'company' && b.type === 'person') {
    const role = COMPANY_ROLE_RE.exec(between);
    if (role) {
      const title = (role[1] ?? '').replace(/\s+/g, ' ');
      const predicate = ROLE_TITLES[title] ?? 'ROLE_AT';
      fact(b, a, predicate, 'role', 0.85, `${b.name} is the ${title.length <= 4 ? title.toUpperCase() : title} of ${a.name}`, predicate, changeDate);
      return out;
    }
    if (COMPANY_JOB_RE.test(between)) {
      fact(b, a, 'WORKS_AT', 'relationship', 0.8, `${b.name} works at ${a.name}`, 'WORKS_AT');
      return out;
    }
    if (/^\s*(?:was\s+|were\s+)?(?:co-?founded|founded|started)\s+by\s+$/.test(between)) {
      fact(b, a, 'FOUNDER_OF', 'role', 0.85, `${b.name} founded ${a.name}`, 'FOUNDER_OF', dates[0]?.iso);
      return out;
    }
    if (/^\s*(?:hired|has\s+hired|just\s+hired|appointed|named)\s+$/.test(between)) {
      fact(b, a, 'WORKS_AT', 'relationship', 0.75, `${b.name} works at ${a.name}`, 'WORKS_AT', changeDate ?? dates[0]?.iso);
      return out;
    }
  }
  if (a.type === 'person' && b.type === 'person' && /^\s*(?:,\s*)?(?:now\s+|still\s+|will\s+|directly\s+|who\s+)?(?:reports|reported|report|reporting)\s+(?:directly\s+)?to\s+$/.test(between)) {
    fact(a, b, 'REPORTS_TO', 'relationship', 0.85, `${a.name} reports to ${b.name}`, 'REPORTS_TO', changeDate);
    return out;
  }
  if (a.type === 'event' && b.type === 'date') {
    if (/^\s*(?:in\s+⟨location⟩\s+)?on\s+(?:the\s+)?$/.test(between) || /^\s*(?:[a-z ,'’-]{0,60}\s)?(?:is|was|will\s+be|starts|started|begins|began|kicks\s+off|takes\s+place|took\s+place|happens|held|scheduled|planned|set|moved|postponed|rescheduled|pushed|runs|ran)\b[a-z ,'’-]{0,30}\s(?:on|for|to|from|in)\s+(?:the\s+)?$|^\s*(?:on|,)\s+(?:the\s+)?$/.test(between)) {
      fact(a, b, 'DATE', 'date', 0.8, `${a.name} takes place on ${b.properties.date ?? b.name}`, undefined);
      a.properties.date = String(b.properties.date ?? b.name);
      return out;
    }
  }
  return out;
}

/** Metric statements of a sentence: name, the value phrase as written, and a compact value. */
function metricsOf(sentence: string): { name: string; phrase: string; value: string; index: number }[] {
  const amount = String.raw`(?:[$€£]\s?\d[\d,.]*\s*(?:k|m|bn|b|million|billion|thousand)?|\d[\d,.]*\s*(?:%|percent|k\b|m\b|million|billion|thousand|users|customers|people|ms|seconds)?)`;
  const re = new RegExp(
    String.raw`\b(${METRIC_RE})\b(?:\s+\w+){0,2}?\s+(grew|rose|increased|jumped|climbed|fell|dropped|declined|decreased|shrank|reached|hit|was|is|were|totaled|totalled|came\s+in\s+at|stood\s+at|doubled|tripled|is\s+up|is\s+down|was\s+up|was\s+down|went\s+up|went\s+down)\s+(?:by\s+)?(${amount})(?:\s*(?:to|at)\s+(${amount}))?`,
    'gi',
  );
  const result: { name: string; phrase: string; value: string; index: number }[] = [];
  // "revenue of $48M for the year, up 12%"
  const of = new RegExp(String.raw`\b(${METRIC_RE})\s+(?:of|at)\s+(${amount})(?:[^.;]{0,30}?\b(up|down)\s+(\d[\d.]*\s*%))?`, 'gi');
  for (const match of sentence.matchAll(of)) {
    const first = (match[2] ?? '').trim();
    if (!/\d/.test(first)) continue;
    const change = match[4] ? `, ${match[3] === 'down' ? '-' : '+'}${match[4].replace(/\s+/g, '')}` : '';
    result.push({ name: (match[1] ?? '').toLowerCase(), phrase: `of ${first}${change ? ` (${change.slice(2)})` : ''}`, value: `${first}${change}`, index: match.index ?? 0 });
  }
  for (const match of sentence.matchAll(re)) {
    const name = (match[1] ?? '').toLowerCase().replace(/\s+/g, ' ');
    const verb = (match[2] ?? '').toLowerCase().replace(/\s+/g, ' ');
    const first = (match[3] ?? '').trim();
    const second = (match[4] ?? '').trim();
    if (!/\d/.test(first)) continue;
    const phrase = `${verb} ${/^(?:grew|rose|increased|jumped|climbed|fell|dropped|declined|decreased|shrank)$/.test(verb) && first.endsWith('%') ? '' : ''}${first}${second ? ` to ${second}` : ''}`;
    const down = /fell|dropped|declined|decreased|shrank|down/.test(verb);
    const up = /grew|rose|increased|jumped|climbed|doubled|tripled|up/.test(verb);
    const delta = first.endsWith('%') && (up || down) ? `${down ? '-' : '+'}${first}` : first;
    const value = second ? `${delta} to ${second}` : delta;
    result.push({ name, phrase: phrase.replace(/\s+/g, ' ').trim(), value: value.replace(/\s+(?=[%kmb])/gi, ''), index: match.index ?? 0 });
  }
  return result;
}
