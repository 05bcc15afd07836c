import { escapeRegExp } from '../../core/answers/text.js';
import type { EntityType } from '../spec.js';
import {
  BARE_PERSON_NOUNS,
  CLAUSE_OPENERS,
  EMPLOYER_NOUNS,
  FEMININE_WORDS,
  HONORIFICS,
  INTERJECTIONS,
  KINSHIP_WORDS,
  MASCULINE_WORDS,
  PERSON_NOUNS,
} from './extraction-lexicon.js';

/**
 * Pronoun resolution for the built-in extractor: which named entity a "she" or "he" (and "her"/"his" before
 * "company"), or a clause-opening "it"/"the company", stands for, so that "Met Sarah Chen at the Berlin
 * conference; she is the CFO of Acme Corp." states a fact about Sarah Chen.
 *
 * Precision first, with rules one can explain. A pronoun is resolved only when
 * - one person can be meant: exactly one candidate in the window (the sentence so far and the one before,
 *   reaching further back only while that holds nobody), or
 * - the most recent candidate is the subject of an earlier clause (it opens its clause and a verb follows)
 *   and a clause break separates it from the pronoun ("Tom met Ana at the bar; Ana said..., and she...").
 * Candidates are the named people, the people left unnamed ("my sister", "a colleague", pets), and earlier
 * pronouns (resolved or not), so an unnamed sister or an unresolved "she" makes a later "she" ambiguous.
 * The only gender evidence used is in the text: honorifics and family words ("Mrs. Sato", "my brother")
 * and the pronouns already resolved; never a list of given names. A name on a speaker label ("Jessica Alvarez:")
 * or addressed ("Thanks, Olivia!") is the writer or the reader, who are "I" and "you", not "she".
 * "I", "we", "you" and "they" are never resolved here (the extractor reads a speaker's "I" on its own
 * line); a clause-opening "it" only to a company that is the one company, product or event in the window
 * and the subject of its clause; "the company" to the one company.
 */

export interface CorefToken {
  readonly text: string;
  readonly pos: string;
  readonly start: number;
  readonly end: number;
}

export interface CorefSentence {
  readonly text: string;
  readonly tokens: readonly CorefToken[];
}

/** A name the extractor found, by its entity key; offsets are within the sentence's text. */
export interface NamedMention {
  readonly key: string;
  readonly type: EntityType;
  readonly sentence: number;
  readonly start: number;
  readonly end: number;
}

/** A pronoun that stands for the named entity `key`. */
export interface ResolvedPronoun {
  readonly key: string;
  readonly text: string;
  readonly sentence: number;
  readonly start: number;
  readonly end: number;
}

/**
 * A fact read through a resolved pronoun is right only when both the pattern and the resolution are, so its
 * confidence is the pattern's times this.
 */
export const PRONOUN_CONFIDENCE = 0.85;

type Gender = 'feminine' | 'masculine';
type Kind = 'person' | 'thing';

interface Referent {
  /** The entity key; unnamed people and unresolved pronouns get an id of their own. */
  readonly id: string;
  readonly named: boolean;
  readonly kind: Kind;
  readonly company: boolean;
  readonly gender?: Gender | undefined;
  readonly sentence: number;
  readonly start: number;
  readonly end: number;
  /** Opens its clause and a verb follows it. */
  readonly subject: boolean;
}

interface PronounSite {
  readonly text: string;
  readonly sentence: number;
  readonly start: number;
  readonly end: number;
  readonly wants: 'person' | 'thing' | 'company';
  readonly gender?: Gender | undefined;
  /** "he"/"she": always the subject of its clause. */
  readonly subject: boolean;
}

/** How many sentences back the window may reach when the nearer ones name nobody. */
const MAX_SENTENCES_BACK = 3;

const words = (text: string) => text.toLowerCase().match(/[\p{L}'’-]+/gu) ?? [];
const INTERJECTION_RE = new RegExp(`^(?:[\\s,.!?-]*\\b(?:${INTERJECTIONS.map(escapeRegExp).join('|')})\\b)+[\\s,]*$`, 'i');
const UNNAMED_RE = new RegExp(
  String.raw`\b(?:(my|his|her|their|our|your|a|an|the|this|that|one|some)\s+(?:[a-z]+(?:-[a-z]+)?\s+){0,2}?(${[...PERSON_NOUNS].map(escapeRegExp).join('|')})|(${[...BARE_PERSON_NOUNS].join('|')}))\b(?![-'’]\p{L})`,
  'giu',
);
const POSSESSED_RE = new RegExp(String.raw`^['’]s\s+(?:[a-z]+(?:-[a-z]+)?\s+){0,2}?(${[...PERSON_NOUNS].map(escapeRegExp).join('|')})\b(?![-'’]\p{L})`, 'iu');
const POSSESSIVE_RE = new RegExp(String.raw`\b(her|his)\s+(?:new\s+|current\s+|own\s+)?(?:${EMPLOYER_NOUNS.map(escapeRegExp).join('|')})\b`, 'gi');
const COPULA_BEFORE_RE = /\b(?:is|was|are|were|be|been|being|became|becomes|as|['’]s)\s*$/i;
const ASKING_RE = /\b(?:ask|asks|asked|asking|inquire|inquires|inquired|inquiring|wonder|wonders|wondered|wondering)\b[^.;:!?]*\b(?:how|whether|if|why|what|where|when)\s*$/i;
const DEFINITE_COMPANY_RE = /^(?:the\s+(?:company|firm|startup|start-up))\b/i;

function genderOfWord(word: string): Gender | undefined {
  const clean = word.toLowerCase().replace(/\.$/, '');
  if (FEMININE_WORDS.has(clean)) return 'feminine';
  if (MASCULINE_WORDS.has(clean)) return 'masculine';
  return undefined;
}

/** Where the clause holding `start` begins: after the last ; : , ( or dash before it. */
function clauseStart(text: string, start: number): number {
  const before = text.slice(0, start);
  const match = /.*[;:,(—–]|.*\s-\s/s.exec(before);
  return match ? match[0].length : 0;
}

function opensClause(sentence: CorefSentence, start: number): boolean {
  const prefix = sentence.text.slice(clauseStart(sentence.text, start), start);
  return words(prefix).every((word) => CLAUSE_OPENERS.has(word) || HONORIFICS.has(word) || KINSHIP_WORDS.has(word));
}

function verbFollows(sentence: CorefSentence, end: number): boolean {
  for (const token of sentence.tokens) {
    if (token.start < end) continue;
    if (token.pos === 'ADV') continue;
    return token.pos === 'VERB' || token.pos === 'AUX';
  }
  return false;
}

/** A name that labels a speaker ("Jessica Alvarez: ...") or addresses the reader ("Thanks, Olivia!", "..., Tom."). */
function speakerOrAddressee(sentence: CorefSentence, start: number, end: number): boolean {
  const before = sentence.text.slice(0, start);
  const after = sentence.text.slice(end);
  if (before.trim() === '' && /^\s*:/.test(after)) return true;
  if (INTERJECTION_RE.test(before) && /^\s*(?:[,!?.]|$)/.test(after)) return true;
  if (before.trim() === '' && /^\s*[!?]/.test(after)) return true;
  return /,\s*$/.test(before) && /^\s*[!?.]*\s*$/.test(after);
}

/** The gender the words just before a name give it: "Mrs. Sato", "Uncle Piotr", "my sister Ana". */
function genderBefore(sentence: CorefSentence, start: number, text: string): Gender | undefined {
  const own = genderOfWord(words(text)[0] ?? '');
  if (own) return own;
  const previous = words(sentence.text.slice(Math.max(0, start - 20), start)).pop();
  return previous ? genderOfWord(previous) : undefined;
}

/** Named mentions, unnamed people and pronoun sites of one sentence, in reading order. */
function eventsOf(sentence: CorefSentence, index: number, named: readonly NamedMention[]): (Referent | PronounSite)[] {
  const events: (Referent | PronounSite)[] = [];
  const people = named.filter((mention) => mention.type === 'person');
  for (const mention of named) {
    const kind: Kind | undefined = mention.type === 'person' ? 'person' : ['company', 'product', 'event'].includes(mention.type) ? 'thing' : undefined;
    if (!kind) continue;
    if (kind === 'person' && speakerOrAddressee(sentence, mention.start, mention.end)) continue;
    const text = sentence.text.slice(mention.start, mention.end);
    events.push({
      id: mention.key,
      named: true,
      kind,
      company: mention.type === 'company',
      gender: kind === 'person' ? genderBefore(sentence, mention.start, text) : undefined,
      sentence: index,
      start: mention.start,
      end: mention.end,
      subject: opensClause(sentence, mention.start) && verbFollows(sentence, mention.end),
    });
  }
  for (const match of sentence.text.matchAll(UNNAMED_RE)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    const before = sentence.text.slice(0, start);
    // "Sarah is my sister", "Sarah, my sister,": the same person again. "my partner Lukas", "a woman, Jean",
    // "someone named David": the name that follows is who it is.
    if (match[1] && COPULA_BEFORE_RE.test(before)) continue;
    if (people.some((person) => person.end <= start && /^,?\s*$/.test(sentence.text.slice(person.end, start)))) continue;
    if (people.some((person) => person.start >= end && /^\s*(?:,\s*|\s(?:named|called)\s+)?$/.test(sentence.text.slice(end, person.start)))) continue;
    const head = (match[2] ?? match[3] ?? '').toLowerCase();
    events.push({ id: `unnamed:${index}:${start}`, named: false, kind: 'person', company: false, gender: genderOfWord(head), sentence: index, start, end, subject: false });
  }
  // "Sarah Chen's husband": someone else than Sarah Chen.
  for (const person of people) {
    const match = POSSESSED_RE.exec(sentence.text.slice(person.end));
    if (!match) continue;
    const start = person.end;
    events.push({ id: `unnamed:${index}:${start}`, named: false, kind: 'person', company: false, gender: genderOfWord(match[1] ?? ''), sentence: index, start, end: start + match[0].length, subject: false });
  }
  sentence.tokens.forEach((token, position) => {
    const word = token.text.toLowerCase();
    if (word === 'she' || word === 'he') {
      events.push({ text: token.text, sentence: index, start: token.start, end: token.end, wants: 'person', gender: word === 'she' ? 'feminine' : 'masculine', subject: true });
      return;
    }
    // "It" and "the company" at the start of a clause ("It is based in Berlin"); elsewhere "it" is mostly
    // a thing or a situation.
    const clauseOpening = position === 0 || /^[;:]$/.test(sentence.tokens[position - 1]?.text ?? '');
    if (!clauseOpening) return;
    const definite = DEFINITE_COMPANY_RE.exec(sentence.text.slice(token.start));
    if (definite) events.push({ text: definite[0], sentence: index, start: token.start, end: token.start + definite[0].length, wants: 'company', subject: true });
    else if (word === 'it') events.push({ text: token.text, sentence: index, start: token.start, end: token.end, wants: 'thing', subject: true });
  });
  for (const match of sentence.text.matchAll(POSSESSIVE_RE)) {
    const start = match.index ?? 0;
    const text = match[1] ?? '';
    events.push({ text, sentence: index, start, end: start + text.length, wants: 'person', gender: text.toLowerCase() === 'her' ? 'feminine' : 'masculine', subject: false });
  }
  return events.sort((a, b) => a.start - b.start);
}

/** A pronoun left unresolved is still someone, who makes the next pronoun ambiguous. */
function unresolved(site: PronounSite): Referent {
  return {
    id: `pronoun:${site.sentence}:${site.start}`,
    named: false,
    kind: site.wants === 'person' ? 'person' : 'thing',
    company: site.wants === 'company',
    gender: site.gender,
    sentence: site.sentence,
    start: site.start,
    end: site.end,
    subject: site.subject,
  };
}

const isSite = (event: Referent | PronounSite): event is PronounSite => 'wants' in event;

/** The pronouns of a text that stand, unambiguously enough, for a named person or company. */
export function resolvePronouns(sentences: readonly CorefSentence[], mentions: readonly NamedMention[]): ResolvedPronoun[] {
  const resolved: ResolvedPronoun[] = [];
  const history: Referent[] = [];
  // Gender learnt along the way (honorifics, family words, resolved pronouns); a conflict forgets it.
  const genders = new Map<string, Gender | null>();
  const learn = (id: string, gender: Gender | undefined) => {
    if (!gender) return;
    const known = genders.get(id);
    genders.set(id, known === undefined || known === gender ? gender : null);
  };
  const genderOf = (referent: Referent) => (referent.named ? genders.get(referent.id) ?? undefined : referent.gender);

  sentences.forEach((sentence, index) => {
    const named = mentions.filter((mention) => mention.sentence === index);
    for (const event of eventsOf(sentence, index, named)) {
      if (!isSite(event)) {
        history.push(event);
        if (event.named) learn(event.id, event.gender);
        continue;
      }
      // "Tom asks how she is doing": who asks after someone asks after someone else.
      if (event.wants === 'person' && ASKING_RE.test(sentence.text.slice(0, event.start))) {
        history.push(unresolved(event));
        continue;
      }
      const fits = (referent: Referent) =>
        event.wants === 'person' ? referent.kind === 'person' : event.wants === 'company' ? referent.company : referent.kind === 'thing';
      let from = index - 1;
      while (from > index - MAX_SENTENCES_BACK && !history.some((referent) => referent.sentence >= from && fits(referent))) from--;
      const candidates = history.filter((referent) => referent.sentence >= from && fits(referent) && (!event.gender || !genderOf(referent) || genderOf(referent) === event.gender));
      const distinct = [...new Set(candidates.map((candidate) => candidate.id))];
      const last = candidates[candidates.length - 1];
      let target: Referent | undefined;
      if (distinct.length === 1 && last?.named) target = last;
      else if (event.wants === 'person' && last?.named && last.subject) {
        const gap = last.sentence < index ? '.' : sentence.text.slice(last.end, event.start);
        if (/[;:,.!?—–]|\s(?:and|but|so|then)\s/.test(gap)) target = last;
      }
      // "it" is often a situation or an unnamed thing ("It's a cool way to..."): only a company that is
      // the subject of its own clause is clearly what it stands for ("Acme Corp is growing. It is based...").
      if (event.wants === 'thing' && !(target?.company && target.subject)) target = undefined;
      if (target) {
        resolved.push({ key: target.id, text: event.text, sentence: index, start: event.start, end: event.end });
        if (event.wants === 'person') learn(target.id, event.gender);
        history.push({ ...target, sentence: index, start: event.start, end: event.end, subject: event.subject });
      } else history.push(unresolved(event));
    }
  });
  return resolved;
}
