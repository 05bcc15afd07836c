/**
 * Small, dependency-free text helpers shared by the answer services and the built-in answerer: word
 * tokens, stopwords, proper-noun phrases, and date phrases (found, and relative ones resolved against the
 * date a memory was written). Deliberately light: they run on every ask and remind, in microseconds.
 */
import { stem as porterStem } from '../search/terms.js';

const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each few for from further get got had has ' +
    'have having he her here hers herself him himself his how i if in into is it its itself just let me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some ' +
    'such than that the their theirs them themselves then there these they this those through to too under until ' +
    'up very was we were what when where which while who whom why will with would you your yours yourself ' +
    'yourselves i\'m it\'s don\'t didn\'t what\'s that\'s there\'s one ever any many much kind thing things really ' +
    'yes yeah oh ok okay well like going go went gonna know think thought make made'
  ).split(' '),
);

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Weekdays as people shorten them in chat ("Last Fri"). */
const WEEKDAY_SHORT = ['Mon', 'Tue', 'Tues', 'Wed', 'Thu', 'Thur', 'Thurs', 'Fri'];
/** Months' short forms that name no one ("Meeting notes 3 Nov"); "Jan" and "Jun" are also names. */
const MONTH_SHORT = ['Feb', 'Mar', 'Apr', 'Aug', 'Sep', 'Sept', 'Oct', 'Nov', 'Dec'];
const CALENDAR = new Set([...MONTHS, ...WEEKDAYS, ...WEEKDAY_SHORT, ...MONTH_SHORT]);
/** Words that make a calendar word a time ("Last Friday", "Next May"): no name once the calendar word is gone. */
const CALENDAR_MODIFIERS = new Set(['Last', 'Next', 'This', 'Every', 'Each', 'Early', 'Late', 'Mid', 'Since', 'Until', 'On', 'In']);
/** Verbs and nouns that open notes ("Met Sarah", "Call Bob"): capitalised only because they come first. */
const OPENERS = new Set(
  'met meet call called ask asked email emailed tell told send sent pay paid buy bought talk talked lunch dinner visit visited remind reminder check review discuss discussed plan book booked follow note todo ask letter message'.split(' '),
);

/** Verbs that help another: they end a wh-phrase ("What course | did Priya take?") and take no doer. */
const AUXILIARIES = new Set('is are was were be been do does did has have had will would can could should shall may might must'.split(' '));

/** Whether a word (any case) is an auxiliary verb. */
export function isAuxiliary(word: string): boolean {
  return AUXILIARIES.has(word.toLowerCase());
}

/** Whether a word opens a note's line as a verb or an errand ("Met", "Called", "Lunch"): no name. */
export function isOpener(word: string): boolean {
  return OPENERS.has(word.toLowerCase());
}

/** Capitalised words that are not names: pronouns, calendar words, sentence openers. */
const NOT_NAMES = new Set([...MONTHS, ...WEEKDAYS, ...WEEKDAY_SHORT, ...MONTH_SHORT, 'I', 'I\'m', 'I\'ve', 'I\'ll', 'I\'d', 'OK', 'Ok', 'Hey', 'Hi', 'Hello', 'Thanks', 'Wow', 'Yes', 'No', 'Oh']);

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/** Lower-cased word tokens (letters and digits, inner apostrophes kept). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/**
 * A word's Porter2 stem, search's own (core/search/terms.ts), so that the answerer and search agree on which
 * words match: "realize"/"realized"/"realizing" and "race"/"races" meet, and a possessive is its name.
 */
export function stem(word: string): string {
  return porterStem(word.replace(/['’]s$/u, ''));
}

/** Content words as written (lower-cased, not stemmed): stopwords and one-letter tokens removed. */
export function writtenWords(text: string): string[] {
  return words(text).filter((word) => word.length > 1 && !STOPWORDS.has(word));
}

/** Stemmed content words: stopwords and one-letter tokens removed. */
export function contentWords(text: string): string[] {
  return writtenWords(text).map(stem);
}

/**
 * What two forms of one word share where the stemmer parts them: a stem's first six letters ("allergic" and
 * "allergies" stem to allerg and allergi, both keyed allerg). For matching a question's words to a line's;
 * search keeps the stems (its index is built on them).
 */
export function wordKey(stemmed: string): string {
  return stemmed.length > 6 ? stemmed.slice(0, 6) : stemmed;
}

/**
 * The present of common irregular verbs: a question asks with "did ... take" what a line tells with
 * "took", which no stemmer meets.
 */
const IRREGULAR: Record<string, string> = Object.fromEntries(
  (
    'took:take taken:take made:make found:find saw:see seen:see went:go gone:go got:get gotten:get bought:buy brought:bring ' +
    'gave:give given:give thought:think told:tell said:say felt:feel kept:keep left:leave met:meet ran:run sent:send spent:spend ' +
    'won:win wrote:write written:write ate:eat eaten:eat began:begin begun:begin built:build caught:catch chose:choose chosen:choose ' +
    'drew:draw drawn:draw drove:drive driven:drive fell:fall flew:fly forgot:forget grew:grow grown:grow heard:hear held:hold ' +
    'knew:know known:know lost:lose paid:pay rode:ride sang:sing sat:sit sold:sell stood:stand swam:swim taught:teach threw:throw ' +
    'wore:wear became:become came:come learnt:learn learned:learn'
  )
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

/** A word's present when it is an irregular verb's past ("took" -> "take"); the word itself otherwise. */
export function presentOf(word: string): string {
  return IRREGULAR[word] ?? word;
}

/** contentWords keyed by wordKey, an irregular past keyed as its present ("took" meets "take"). */
export function termsOf(text: string): string[] {
  return writtenWords(text).map((word) => wordKey(stem(presentOf(word))));
}

/** Tokens as a reader counts them: words, numbers and punctuation marks. */
export function countTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

/** Titles written before a name with a period ("Mr. Haddad"): the name keeps its title. */
export const NAME_TITLES = 'Mr|Mrs|Ms|Mx|Dr|Prof';
/** A sentence piece that ends in a title's or an initial's period, not a sentence's ("I." ends one). */
const ABBREVIATION_END = new RegExp(`(?:^|[\\s(])(?:${NAME_TITLES}|Sr|Jr|St|Mt|Rev|Capt|Lt|Col|Gen|Sgt|Hon|vs|approx|(?!I\\.)\\p{Lu})\\.$`, 'u');

/**
 * A run of capitalised words, "of"/"de"/"van"/"von" allowed inside, a title with its period before it. A
 * capital inside a word opens none ("0.27 €/kWh" names nothing).
 */
const NAME_RUN = new RegExp(`(?<![\\p{L}\\p{N}])(?:(?:${NAME_TITLES})\\.\\s+)?\\p{Lu}[\\p{L}\\p{N}&'’-]*(?:\\s+(?:of\\s+|de\\s+|van\\s+|von\\s+)?\\p{Lu}[\\p{L}\\p{N}&'’-]*)*`, 'gu');

/** Sentences of a text (paragraph breaks end a sentence too). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\n\s*\n|\r\n\s*\r\n|\n(?=\s*[-*•]\s)/)) {
    const parts = paragraph.replace(/\s+/g, ' ').trim().match(/[^.!?]+(?:[.!?]+["')\]]*|$)\s*/g) ?? [];
    let pending = '';
    for (const part of parts) {
      const sentence = `${pending}${part}`.trim();
      // "Mr. Haddad", "Dr. Okafor", "J. Smith": the period of a title or an initial ends no sentence.
      if (ABBREVIATION_END.test(sentence)) {
        pending = `${sentence} `;
        continue;
      }
      pending = '';
      if (sentence) out.push(sentence);
    }
    if (pending.trim()) out.push(pending.trim());
  }
  return out;
}

/**
 * Capitalised phrases that look like names (people, organisations, places): "Sarah Chen", "Acme Corp".
 * A sentence's first word counts only when it is not a common word; calendar words are not names.
 */
export function properNouns(text: string): string[] {
  const found = new Map<string, string>();
  for (const sentence of sentences(text)) {
    // matchAll works on a copy of NAME_RUN: its lastIndex is never shared between calls.
    for (const match of sentence.matchAll(NAME_RUN)) {
      let parts = match[0].split(/\s+/);
      const atStart = sentence.slice(0, match.index).trim().replace(/^["'(\[]+/, '') === '';
      if (atStart && parts.length > 0 && (isStopword(parts[0] ?? '') || OPENERS.has((parts[0] ?? '').toLowerCase()) || /(?:ing|ed)$/.test(parts[0] ?? '') || parts.length === 1)) {
        // "Preparing the review", "The plan", a lone capitalised opener: not a name by itself.
        if (parts.length === 1 && !/^\p{Lu}{2,}$/u.test(parts[0] ?? '')) parts = [];
        else if (parts.length > 1) parts = parts.slice(1);
      }
      parts = parts.map((part) => part.replace(/['’]s$/u, '').replace(/[-'’]+$/u, ''));
      // Words that are no names (pronouns, calendar words) split a run: "Last Friday Tom Reyes" holds
      // one name. A word that only made a calendar word a time ("Last" of "Last Friday") names nothing.
      const segments: string[][] = [[]];
      for (const part of parts) {
        if (!NOT_NAMES.has(part)) {
          segments[segments.length - 1]?.push(part);
          continue;
        }
        const before = segments[segments.length - 1] ?? [];
        if (CALENDAR.has(part) && before.length === 1 && CALENDAR_MODIFIERS.has(before[0] ?? '')) before.pop();
        segments.push([]);
      }
      // A sentence's first word alone before a pronoun ("Maybe I will...", "Sure I can") is capitalised
      // because it opens the sentence, as a lone first word is.
      const first = segments[0] ?? [];
      if (atStart && segments.length > 1 && first.length === 1 && first[0] === match[0].split(/\s+/)[0] && !/^\p{Lu}{2,}$/u.test(first[0] ?? '')) segments.shift();
      for (const segment of segments) {
        const phrase = segment.join(' ').trim();
        if (phrase.length > 1 && !isStopword(phrase)) found.set(phrase.toLowerCase(), phrase);
      }
    }
  }
  return [...found.values()];
}

/** A text to match literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The share (0-1) of `names` that a text mentions: whole words, case-sensitive, so "May" does not match
 * "may" nor "Ann" "Annual". Cheap enough to run over hundreds of search candidates.
 */
export function nameMatcher(names: readonly string[]): (text: string) => number {
  const patterns = names.map((name) => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, 'u'));
  return (text) => (patterns.length === 0 ? 0 : patterns.filter((pattern) => pattern.test(text)).length / patterns.length);
}

/**
 * Names shared by two texts, as written in `text`: a phrase is shared when one text's phrase contains the
 * other's as whole words ("Sarah" and "Sarah Chen"); the shorter, common form is reported.
 */
export function sharedNames(context: string, text: string): string[] {
  const ours = properNouns(context).map((phrase) => phrase.toLowerCase().split(/\s+/));
  const shared = new Map<string, string>();
  for (const phrase of properNouns(text)) {
    const parts = phrase.split(/\s+/);
    const lower = parts.map((part) => part.toLowerCase());
    for (const other of ours) {
      if (indexOfRun(other, lower) >= 0) shared.set(phrase.toLowerCase(), phrase);
      else {
        const at = indexOfRun(lower, other);
        if (at >= 0) shared.set(other.join(' '), parts.slice(at, at + other.length).join(' '));
      }
    }
  }
  // "Sarah" and "Sarah Chen" both matched: keep the longer.
  const names = [...new Set(shared.values())];
  return names.filter((name) => !names.some((longer) => longer !== name && ` ${longer} `.includes(` ${name} `)));
}

/** Where `needle` occurs as a run of whole words inside `haystack`, or -1. */
function indexOfRun(haystack: readonly string[], needle: readonly string[]): number {
  if (needle.length === 0 || needle.length > haystack.length) return -1;
  for (let start = 0; start + needle.length <= haystack.length; start++) {
    if (needle.every((word, offset) => haystack[start + offset] === word)) return start;
  }
  return -1;
}

// ---- dates ------------------------------------------------------------------------------------------

// The period belongs to a short form ("Feb."), not to a full name that ends a sentence ("on 2 February.").
const MONTH_RE = `(?:${MONTHS.join('|')}|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\\.?)`;
const WEEKDAY_RE = `(?:${WEEKDAYS.join('|')})`;
const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, twenty: 20, few: 3, couple: 2 };
/** The counts a relative phrase may give in words ("ten years ago"). */
const AGO_COUNT = `(?:\\d+|${Object.keys(NUMBER_WORDS).filter((word) => word !== 'few' && word !== 'couple').join('|')}|few|couple(?: of)?)`;

/** A whole relative span, lower-cased: its count and unit ("ten years ago"). */
const AGO_PHRASE = new RegExp(`^(${AGO_COUNT}) (day|week|month|year)s? ago$`);

/** Explicit dates: "8 May 2023", "May 8, 2023", "2023-05-08", "May 2023", "Tuesday", "next week", "tomorrow". */
const EXPLICIT_DATE = new RegExp(
  [
    `\\b\\d{4}-\\d{2}-\\d{2}\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH_RE}(?:,?\\s+\\d{4})?`,
    // The day must end there: "March 2024" is a month and year, not "March 20".
    `\\b${MONTH_RE}\\s+\\d{1,2}(?:st|nd|rd|th)?\\b(?:,?\\s+\\d{4})?`,
    `\\b${MONTH_RE}\\s+\\d{4}\\b`,
    `\\b(?:next|this|on|by|until)\\s+${WEEKDAY_RE}\\b`,
    `\\b${WEEKDAY_RE}\\b`,
    `\\b(?:tomorrow|tonight|today|next (?:week|month|year|weekend)|this (?:week|weekend|month)|end of (?:the|this|next) (?:week|month|quarter|year))\\b`,
    `\\bin \\d{4}\\b`,
  ].join('|'),
  'i',
);

/** Phrases relative to when the memory was written, which an answer must turn into a date. */
const RELATIVE_DATE = new RegExp(
  [
    `\\byesterday\\b`,
    `\\b(?:last|past) (?:week|weekend|month|year|night|${WEEKDAY_RE})\\b`,
    `\\b${AGO_COUNT} (?:days?|weeks?|months?|years?) ago\\b`,
    `\\b(?:today|this morning|tonight|this (?:week|weekend|month|year)|earlier today)\\b`,
    `\\b(?:next|this coming) (?:week|month|year|weekend)\\b`,
    `\\btomorrow\\b`,
  ].join('|'),
  'i',
);

export function findExplicitDate(text: string): string | undefined {
  return EXPLICIT_DATE.exec(text)?.[0];
}

export function findRelativeDate(text: string): string | undefined {
  return RELATIVE_DATE.exec(text)?.[0];
}

export function hasDate(text: string): boolean {
  return EXPLICIT_DATE.test(text) || RELATIVE_DATE.test(text);
}

/** "7 May 2023": the way people (and LoCoMo's answers) write a day. */
export function formatDay(ms: number): string {
  const date = new Date(ms);
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

const DAY = 86_400_000;

/**
 * Turns a relative phrase into what it meant on `base` (epoch ms): "yesterday" written on 8 May 2023 is
 * "7 May 2023"; "last week" is "the week before 8 May 2023"; "last year" is "2022". Undefined when the
 * phrase is not one it knows.
 */
export function resolveRelativeDate(phrase: string, base: number): string | undefined {
  const text = phrase.toLowerCase().trim();
  const year = new Date(base).getUTCFullYear();
  if (text === 'yesterday') return formatDay(base - DAY);
  if (/^(?:today|this morning|tonight|earlier today)$/.test(text)) return formatDay(base);
  if (text === 'tomorrow') return formatDay(base + DAY);
  const ago = AGO_PHRASE.exec(text);
  if (ago) {
    const amount = /^\d+$/.test(ago[1] ?? '') ? Number(ago[1]) : (NUMBER_WORDS[(ago[1] ?? '').replace(/ of$/, '')] ?? 1);
    const unit = ago[2];
    if (unit === 'day') return formatDay(base - amount * DAY);
    if (unit === 'week') return amount === 1 ? `the week before ${formatDay(base)}` : `${amount} weeks before ${formatDay(base)}`;
    if (unit === 'month') return monthOf(base, -amount);
    return String(year - amount);
  }
  const last = /^(?:last|past) (.+)$/.exec(text);
  if (last) {
    const what = last[1] ?? '';
    if (what === 'year') return String(year - 1);
    if (what === 'night') return formatDay(base - DAY);
    if (what === 'month') return monthOf(base, -1);
    if (what === 'week' || what === 'weekend') return `the ${what} before ${formatDay(base)}`;
    const weekday = WEEKDAYS.findIndex((day) => day.toLowerCase() === what);
    if (weekday >= 0) {
      const today = new Date(base).getUTCDay();
      const back = ((today - weekday + 7) % 7) || 7;
      // The weekday stays in the answer: the note said "last Saturday", and the day's name is what a reader
      // checks the date against.
      return `${WEEKDAYS[weekday]} ${formatDay(base - back * DAY)}`;
    }
  }
  const upcoming = /^(?:next|this coming|this) (week|weekend|month|year)$/.exec(text);
  if (upcoming) {
    const what = upcoming[1] ?? '';
    const ahead = text.startsWith('this ') ? 0 : 1;
    // Months and years are calendar units a reader names ("June 2023"); a week has no name, so it stays
    // relative to the day the note was written.
    if (what === 'year') return String(year + ahead);
    if (what === 'month') return monthOf(base, ahead);
    return ahead === 0 ? `the ${what} of ${formatDay(base)}` : `the ${what} after ${formatDay(base)}`;
  }
  return undefined;
}

/** Words that put a sentence's event ahead of the day it was written ("will", "going to", "next"). */
const AHEAD = /\b(?:will|shall|going to|gonna|plan(?:s|ning)? to|next|tomorrow|upcoming|coming up|can['’]t wait|scheduled|due)\b|['’]ll\b/iu;
/** Past forms: a regular "-ed" or a common irregular verb ("won", "went"). */
const PAST = /\b(?:was|were|did|had|went|got|won|made|took|saw|came|ran|met|found|left|bought|gave|told|felt|kept|began|wrote|spent|sent|built|brought|thought|caught|held|lost|paid|sold|became|drove|flew|ate|sang|swam|[a-z]{2,}[^e\s]ed)\b/iu;

/** A weekday alone, with the word that may lead it ("on Friday", "this Friday"). */
const LONE_WEEKDAY = new RegExp(`^(?:(next|this|on|by|until)\\s+)?(${WEEKDAY_RE})$`, 'iu');

/**
 * The day a weekday named in a sentence written on `base` means: "on Friday" in "I won my fourth tourney on
 * Friday" is the Friday before; "this Friday" or a sentence about what comes ("Dentist on Friday", "I'll call
 * on Friday") is the next one. "Friday 8 July 2022"; undefined when the phrase is no lone weekday.
 */
export function resolveWeekday(phrase: string, sentence: string, base: number): string | undefined {
  const match = LONE_WEEKDAY.exec(phrase.trim());
  if (!match) return undefined;
  const weekday = WEEKDAYS.findIndex((day) => day.toLowerCase() === (match[2] ?? '').toLowerCase());
  const today = new Date(base).getUTCDay();
  const cue = (match[1] ?? '').toLowerCase();
  const ahead = cue === 'next' || cue === 'this' || cue === 'by' || cue === 'until' || AHEAD.test(sentence) || !PAST.test(sentence);
  const days = ahead ? ((weekday - today + 7) % 7) || 7 : -(((today - weekday + 7) % 7) || 7);
  return `${WEEKDAYS[weekday]} ${formatDay(base + days * DAY)}`;
}

/**
 * A month named alone ("in March", "by June", "every year in March", "early May"), not a day of it ("March
 * 3") nor a month with its year ("March 2024", an explicit date). Month names only when capitalised: "may"
 * is a verb.
 */
const BARE_MONTH = new RegExp(
  `\\b((?:[Ee]very|[Ee]ach)\\s+(?:year\\s+)?(?:in\\s+)?|(?:[Ii]n|[Bb]y|[Uu]ntil|[Tt]ill|[Ss]ince|[Dd]uring|[Tt]hrough|[Ee]arly|[Ll]ate|[Mm]id-?|(?:[Tt]he\\s+)?(?:end|start|beginning|middle)\\s+of)\\s*)(${MONTHS.join('|')})\\b(?![\\s,]+\\d)`,
  'u',
);

/**
 * What a month named alone in a sentence written on `base` means: a recurring one stays as written ("Every
 * year in March"); otherwise its year is the one the sentence's tense points to (the March before the note in
 * "We moved to Lisbon in March", the one after in "The lease ends in March"): "March 2026", with "early",
 * "late", "mid" or "end of" kept. Undefined when the sentence names no month alone.
 */
export function resolveMonth(sentence: string, base: number): string | undefined {
  const match = BARE_MONTH.exec(sentence);
  if (!match) return undefined;
  const lead = (match[1] ?? '').trim();
  const month = match[2] ?? '';
  if (/^(?:every|each)\b/iu.test(lead)) return `${lead} ${month}`;
  const index = MONTHS.indexOf(month);
  const date = new Date(base);
  const now = date.getUTCMonth();
  const ahead = AHEAD.test(sentence) || !PAST.test(sentence);
  const year = date.getUTCFullYear() + (ahead ? (index >= now ? 0 : 1) : index <= now ? 0 : -1);
  const kept = /^(?:early|late|mid-?|(?:the\s+)?(?:end|start|beginning|middle)\s+of)$/iu.test(lead) ? `${lead.toLowerCase().replace(/^the\s+/u, '')} ` : '';
  return `${kept}${month} ${year}`;
}

/** "June 2023": the calendar month `offset` months from `base` (epoch ms). */
function monthOf(base: number, offset: number): string {
  const date = new Date(base);
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + offset);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}
