/**
 * The words a line says where the question has its gap. An untyped question ("What is Jon working on
 * opening?") is a statement with its object taken out: the gap follows the question's last verb phrase.
 * A line that says that phrase in the same order ("I'm working on opening a dance studio") fills the gap
 * with the words after it ("a dance studio"). The built-in answerer's line ranker chooses the line; this
 * chooses its words.
 */
import { isAuxiliary, isStopword, MONTHS, presentOf, stem, termsOf, wordKey, writtenWords } from '../../core/answers/text.js';
import { WHAT_QUESTION } from './question-forms.js';
import { withoutLabel } from './typed-spans.js';

/** Words a question's gap may be followed by: a phrase that only places or times the asked thing. */
const MODIFIER_OPENERS = new Set([
  'in', 'on', 'at', 'after', 'before', 'during', 'with', 'for', 'from', 'to', 'about', 'by', 'since', 'around', 'through', 'into', 'while',
  'near', 'under', 'over', 'behind', 'across', 'between', 'without', 'within', 'beyond', 'toward', 'towards', 'upon', 'among', 'against', 'along',
  'when', 'as', 'last', 'this', 'next', 'every', 'each', 'recently', 'lately', 'now', 'yesterday', 'today', 'ago', 'so', 'these', 'those', 'according',
  'besides', 'except', 'unlike', 'beside',
]);

/** Words that open the next clause or predicate of a line: the gap's filler ends before them. */
const PHRASE_END = new Set([
  'is', 'are', 'was', 'were', 'am', 'has', 'have', 'had', 'will', 'would', 'can', 'could', 'should', 'might', 'must', 'do', 'does', 'did',
  'but', 'because', 'so', 'although', 'though', 'which', 'who', 'whom', 'when', 'while', 'since', 'until', 'if', 'that', 'where', 'as',
  'i', "i'm", "i've", "i'll", "i'd", 'we', "we're", "we've", 'he', 'she', 'they', "they're", 'it', "it's", 'you', "you're",
  'last', 'next', 'yesterday', 'today', 'tonight', 'tomorrow', 'lately', 'recently', 'too',
]);

/** At most this many words fill a gap: LoCoMo's and people's answers are phrases, not sentences. */
const MAX_WORDS = 8;

interface Token {
  readonly word: string;
  readonly key: string;
  readonly content: boolean;
  readonly end: number;
}

const WEEKDAY_NAMES = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';

/** Words that only time a phrase: a question's "on 23 January, 2022" or "last Friday" is no phrase of it. */
const CALENDAR = new RegExp(`^(?:${MONTHS.join('|')}|${WEEKDAY_NAMES}|week|weekend|month|year|day|morning|evening|night|\\d+(?:st|nd|rd|th)?)$`, 'iu');

/**
 * Verbs the stopword list holds because they say little in a search ("make", "get", "go"), but which a
 * question's phrase needs: "What did Caroline make for a local church?" asks after "make".
 */
const PHRASE_VERBS = new Set(['make', 'get', 'go', 'going', 'think', 'know', 'like']);

/** A written word lower-cased, its curly apostrophe straightened, punctuation at either end dropped. */
function bare(part: string): string {
  return part.toLowerCase().replace(/’/gu, "'").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/**
 * Verbs that say what a thing stands for, one key for all: "What does Caroline's necklace symbolize?" is
 * answered by "it stands for love, faith and strength", "Sunflowers mean warmth and happiness".
 */
const SYMBOL_VERB = /^(?:symboli[sz](?:e|es|ed|ing)|represent(?:s|ed|ing)?|mean|means|meant)$/u;
const SYMBOL_KEY = 'symbol:';

/** "stands for" and "is a symbol of" written as the one word the question's "symbolize" meets. */
function withSymbolVerbs(text: string): string {
  return text.replace(/\b(?:stands?|stood|standing)\s+for\b|\b(?:is|was|are|were)\s+(?:a\s+)?symbols?\s+of\b/giu, 'symbolizes');
}

function tokens(text: string, names: ReadonlySet<string>): Token[] {
  return [...text.matchAll(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)].map((match) => {
    const written = match[0].toLowerCase().replace(/’/gu, "'");
    const word = presentOf(written);
    const symbol = SYMBOL_VERB.test(word);
    const content =
      symbol || (word.length > 1 && (!isStopword(word) || PHRASE_VERBS.has(word)) && !names.has(written) && !MODIFIER_OPENERS.has(word) && !CALENDAR.test(word));
    return { word: written, key: symbol ? SYMBOL_KEY : wordKey(stem(word)), content, end: (match.index ?? 0) + match[0].length };
  });
}

/**
 * The filler of the question's gap in a line, or undefined when the line does not say the question's
 * phrase before it. The phrase is the longest run of the question's content words (names left out, at
 * least `minRun`) that the line holds in the same order with only stopwords between; it must end where the
 * question's gap is (at its end, or before a phrase that places or times the asked thing: "What event did
 * John volunteer at last weekend?"). The filler is what follows it in the line, up to the end of its clause.
 */
export function gapFiller(sentence: string, question: string, questionNames: ReadonlySet<string>, minRun: number): string | undefined {
  return gapFill(sentence, question, questionNames, minRun)?.text;
}

/** A line's filler of the question's gap, and how many of the question's words the line said before it. */
export interface GapFill {
  readonly text: string;
  /** The length of the question's phrase the line says (a named favourite counts as the whole question). */
  readonly run: number;
}

/** gapFiller with the length of the phrase that led to the filler: a longer phrase is surer evidence. */
export function gapFill(sentence: string, question: string, questionNames: ReadonlySet<string>, minRun: number): GapFill | undefined {
  // "Why" and "how" ask for a reason or a manner, which a line gives anywhere; "what" and "which" take
  // the place of a thing.
  if (!WHAT_QUESTION.test(question.trim())) return undefined;
  if (FAVOURITE_QUESTION.test(question)) {
    // A line that calls something its favourite answers with that thing or, when the question names it
    // already ("...besides lemon cake?"), not at all: what it "is" is only "my favourite".
    const favourite = favouriteOf(sentence, question);
    if (favourite !== undefined) return favourite === OWN_FAVOURITE ? undefined : { text: favourite, run: Number.MAX_SAFE_INTEGER };
  }
  const nameWords = new Set([...questionNames].flatMap((name) => name.split(/\s+/u)));
  const asked = tokens(withSymbolVerbs(question), nameWords);
  const copular = isCopular(asked);
  const text = withSymbolVerbs(withoutLabel(sentence));
  const said = tokens(text, nameWords);
  const askedContent = asked.map((token, index) => ({ token, index })).filter((entry) => entry.token.content);
  const saidContent = said.map((token, index) => ({ token, index })).filter((entry) => entry.token.content);
  // Every run of the question's words the line says in order that ends at the question's gap, longest
  // first: the first that a line's words fill answers ("What did Joanna just finish last Friday?").
  const runs: { saidEnd: number; length: number }[] = [];
  for (let i = 0; i < askedContent.length; i++) {
    for (let j = 0; j < saidContent.length; j++) {
      let length = 0;
      while (i + length < askedContent.length && j + length < saidContent.length && askedContent[i + length]?.token.key === saidContent[j + length]?.token.key) {
        // Between two matched words the line may only hold stopwords (it does by construction) and no
        // clause break: the phrase is said as one.
        if (length > 0) {
          const from = said[(saidContent[j + length - 1]?.index ?? 0)]?.end ?? 0;
          const to = said[(saidContent[j + length]?.index ?? 0)]?.end ?? 0;
          if (/[,;:!?.()"“”]/u.test(text.slice(from, to))) break;
        }
        length++;
      }
      if (length < minRun) continue;
      const askedEnd = askedContent[i + length - 1]?.index ?? 0;
      if (!endsAtGap(asked, askedEnd) || (inModifier(asked, askedContent[i]?.index ?? 0) && !takesObject(asked, askedEnd))) continue;
      runs.push({ saidEnd: saidContent[j + length - 1]?.index ?? 0, length });
    }
  }
  const askedKeys = new Set(asked.filter((token) => token.content).map((token) => token.key));
  for (const run of runs.sort((a, b) => b.length - a.length)) {
    const found = fill(text.slice(said[run.saidEnd]?.end ?? 0), copular, askedKeys, nameWords);
    if (found !== undefined) return { text: found, run: run.length };
  }
  return undefined;
}

/**
 * The thing a "what X" or "what kind of X" question names before its verb: "What workshop did Caroline
 * attend?", "What kind of flooring is Jon looking for?". Its last word is the head a line's answer ends on.
 */
const HEAD_QUESTION =
  /^(?:(?:in|at|to|from|for|on|with|about)\s+)?(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?((?:[\p{L}-]+\s+){0,2}?[\p{L}-]+?)\s+(?:do|does|did|is|are|was|were|has|have|had|will|would|can|could)\b/iu;

/** Words that praise or place a thing without saying which kind it is: "a good cause", "new hair color". */
const VAGUE = new Set([
  'new', 'old', 'good', 'great', 'fun', 'nice', 'cool', 'awesome', 'amazing', 'exciting', 'certain', 'different', 'varied', 'other', 'big',
  'small', 'little', 'first', 'last', 'next', 'same', 'favorite', 'favourite', 'fave', 'special', 'whole', 'real', 'many', 'few', 'several',
  'own', 'best', 'lovely', 'beautiful', 'wonderful', 'huge', 'latest', 'recent', 'various', 'such', 'cute', 'super', 'really',
]);

/** Words that praise a thing and say nothing of which it is: "this cute bookmark" answers "bookmark". */
const PRAISE = new Set(['good', 'great', 'fun', 'nice', 'cool', 'awesome', 'amazing', 'exciting', 'lovely', 'beautiful', 'wonderful', 'cute', 'super', 'really', 'special', 'fantastic', 'gorgeous', 'pretty']);

/** Subjects whose next word is their verb, not a modifier of the head: "I love sci-fi movies". */
const SUBJECTS = new Set(['i', 'we', 'you', 'they', 'he', 'she', "i've", "we've", "they've", "i'd", "we'd"]);

/**
 * The head of a "what X" question as a line says it with its own modifiers: "LGBTQ+ counseling workshop"
 * for "What workshop did Caroline attend?" over "I went to an LGBTQ+ counseling workshop last Friday",
 * "action and sci-fi movies" for "What type of movies does Nate enjoy?". Undefined when the line says the
 * head with no word before it that the question does not say. The answerer asks for it when no line fills
 * the question's gap (its verb is not the line's: "went to" for "attend").
 */
export function headPhrase(sentence: string, question: string): string | undefined {
  const asked = HEAD_QUESTION.exec(question.trim());
  if (!asked) return undefined;
  const words = (asked[1] ?? '').split(/\s+/u);
  const headKey = wordKey(stem(words[words.length - 1]?.toLowerCase() ?? ''));
  if (isStopword(headKey)) return undefined;
  const questionKeys = new Set(termsOf(question));
  const parts = withoutLabel(sentence).split(/\s+/u);
  for (let at = 0; at < parts.length; at++) {
    const written = parts[at] ?? '';
    if (wordKey(stem(bare(written))) !== headKey) continue;
    // Back from the head over the words that qualify it: no stopword but an "and" between two of them, and
    // no punctuation but the head's own.
    let from = at;
    let joined = false;
    while (from > 0) {
      const before = parts[from - 1] ?? '';
      const word = bare(before);
      if (/[,;:!?.()"“”]$/u.test(before) || word === '') break;
      // "action and sci-fi movies" joins two modifiers; "helping others and discovering fun activities"
      // joins two clauses (a verb after "and"). One word is taken past an "and".
      if (word === 'and') {
        if (joined || from === at || from - 2 < 0 || /ing$/u.test(bare(parts[from] ?? '')) || isStopword(bare(parts[from - 2] ?? ''))) break;
        joined = true;
        from -= 2;
        break;
      }
      if (isStopword(word) || PHRASE_END.has(word) || MODIFIER_OPENERS.has(word)) break;
      from--;
    }
    if (from > 0 && SUBJECTS.has(bare(parts[from - 1] ?? ''))) from++;
    // A participle that opens the phrase with no article before it is a verb ("discovering fun activities");
    // after one it qualifies ("an LGBTQ+ counseling workshop", "the winning team").
    if (from < at && /ing$/u.test(bare(parts[from] ?? '')) && !DETERMINERS.has(bare(parts[from - 1] ?? ''))) from++;
    while (from < at && bare(parts[from] ?? '') === 'and') from++;
    const modifiers = parts.slice(from, at).map(bare);
    if (!modifiers.some((word) => word !== 'and' && !VAGUE.has(word) && !questionKeys.has(wordKey(stem(word))))) continue;
    return [...parts.slice(from, at), written].join(' ').replace(/[,;:!?.()"“”]+$/u, '');
  }
  return undefined;
}

/** Prepositions that place a deed's object: "made a bookmark for a friend", "got a trophy from a contest". */
const OBJECT_PLACERS = new Set(['for', 'from', 'at', 'in', 'on', 'to', 'with', 'during', 'about', 'by', 'into', 'after', 'before', 'near']);

/**
 * What a line names just before the question's own modifier, when the question asks for its verb's object
 * and then places it: "What did Joanna make for one of the ladies at her writing club?" over "I just
 * finished this cute little bookmark for one of the ladies at my writing club" gives "bookmark". The line's
 * verb may be another ("finished" for "make"); its modifier must be the question's (at least two of its
 * words in order, after a preposition of its own). Its determiner and the words that only praise it ("cute",
 * "cool": PRAISE) are left out; those that tell which ("old car", "little bookmark") stay. Undefined when the line does not say the modifier or names nothing before it.
 */
export function objectBefore(sentence: string, question: string, questionNames: ReadonlySet<string>): GapFill | undefined {
  if (!WHAT_QUESTION.test(question.trim())) return undefined;
  const nameWords = new Set([...questionNames].flatMap((name) => name.split(/\s+/u)));
  const asked = tokens(question, nameWords);
  // "What did <names> <verb> <preposition> ...": the verb is the question's first content word after its
  // auxiliary and names, and a preposition follows it.
  if (!isAuxiliary(asked[1]?.word ?? '')) return undefined;
  const verb = asked.findIndex((token, index) => index > 1 && token.content);
  if (verb < 0 || !OBJECT_PLACERS.has(asked[verb + 1]?.word ?? '')) return undefined;
  const modifier = asked.slice(verb + 2).filter((token) => token.content && !CALENDAR.test(token.word));
  if (modifier.length < 2) return undefined;
  const text = withoutLabel(sentence);
  const said = tokens(text, nameWords);
  for (let at = 0; at < said.length; at++) {
    if (said[at]?.key !== modifier[0]?.key) continue;
    // The modifier's words in order, only stopwords between and no clause break.
    let matched = 1;
    for (let next = at + 1; next < said.length && matched < modifier.length; next++) {
      const token = said[next];
      if (!token || breaksBetween(text, said[next - 1], token)) break;
      if (token.key === modifier[matched]?.key) matched++;
      else if (token.content) break;
    }
    if (matched < 2) continue;
    // Back from the modifier's first word over its determiners to the line's own preposition.
    let opener = at - 1;
    while (opener >= 0 && !said[opener]?.content && !OBJECT_PLACERS.has(said[opener]?.word ?? '')) opener--;
    if (opener < 1 || !OBJECT_PLACERS.has(said[opener]?.word ?? '')) continue;
    // The noun phrase before the preposition: content words that are no past verb, back to a determiner.
    const phrase: Token[] = [];
    for (let back = opener - 1; back >= 0; back--) {
      const token = said[back];
      if (!token || breaksBetween(text, token, said[back + 1])) break;
      if (DETERMINERS.has(token.word) || !token.content || presentOf(token.word) !== token.word || /ed$/u.test(token.word)) break;
      phrase.unshift(token);
    }
    while (phrase.length > 1 && PRAISE.has(phrase[0]?.word ?? '')) phrase.shift();
    const first = phrase[0];
    const last = phrase[phrase.length - 1];
    if (!first || !last || phrase.length > MAX_WORDS) continue;
    return { text: text.slice(startOf(first), last.end), run: matched };
  }
  return undefined;
}

/** Where a token starts in its text. */
function startOf(token: Token): number {
  return token.end - token.word.length;
}

/** Whether a clause ends between two tokens of a text (none when either is missing). */
function breaksBetween(text: string, before: Token | undefined, after: Token | undefined): boolean {
  return before !== undefined && after !== undefined && CLAUSE_END.test(text.slice(before.end, startOf(after)));
}

/** A dash between spaces: what follows it says what the words before it announced. */
const ELABORATION = /\s[–—-]\s/u;

/**
 * A phrase whose head only announces what follows its dash gives what follows: "great news to share - I
 * joined a gym" answers "What exciting news did Maria share?" with "joined a gym", "good cause - to help out
 * veterans" answers "What cause did the run support?". The head announces when it says nothing but praise
 * (VAGUE) and the question's own words; otherwise it is the answer ("necklace is super special to me - a
 * gift from my grandma") and the phrase stays whole.
 */
export function elaborated(phrase: string, question: string): string {
  const dash = ELABORATION.exec(phrase);
  if (!dash) return phrase;
  const head = phrase.slice(0, dash.index);
  const rest = phrase.slice(dash.index + dash[0].length).split(ELABORATION)[0]?.trim() ?? '';
  const asked = new Set(termsOf(question));
  // Praise is matched as written (VAGUE holds words, not keys: "amazing" keys as "amaz").
  const said = writtenWords(head);
  const announces = said.length > 0 && said.every((word) => VAGUE.has(word) || asked.has(wordKey(stem(presentOf(word)))));
  if (!announces || !/[\p{L}\p{N}]/u.test(rest)) return phrase;
  return rest.replace(LEADING_SUBJECT, '').replace(/[,;:.!]+$/u, '');
}

/** A question for someone's favourite thing. */
const FAVOURITE_QUESTION = /\b(?:favou?rites?|faves?|favs?)\b/iu;

/** A line that names a favourite before saying it is one: "contemporary is my top pick". */
const NAMED_FAVOURITE =
  /([^,;:!?.()"“”]+?)\s+(?:is|are|was|were|['’]s)\s+(?:(?:still|always|definitely|probably|really)\s+)?(?:my\s+(?:(?:all-time|absolute|total)\s+)?(?:top\s+pick|favou?rite|fave|fav|go-to)|(?:at\s+)?the\s+top\s+of\s+my\s+list|one\s+of\s+my\s+(?:favou?rites|faves|top\s+picks))\b/iu;

/** Words that open a clause and are no part of the thing named before "is my favourite". */
const CLAUSE_OPENERS = /^(?:(?:but|and|so|though|yet|also|oh|well|honestly|plus|i\s+think|i\s+guess)\s+)+/iu;

/** favouriteOf's value for a line whose favourite is the one the question names. */
const OWN_FAVOURITE = Symbol('own favourite');

/**
 * What a line names as a favourite before calling it one ("I love all dances, but contemporary is my top
 * pick" gives "contemporary"); a line that says "my favourite X is Y" is filled by gapFiller's copular step.
 */
function favouriteOf(sentence: string, question: string): string | typeof OWN_FAVOURITE | undefined {
  const found = NAMED_FAVOURITE.exec(withoutLabel(sentence));
  if (!found) return undefined;
  const subject = (found[1] ?? '').trim().replace(CLAUSE_OPENERS, '');
  const words = subject.split(/\s+/u);
  // A pronoun ("it's my favourite") or a whole clause names nothing the question can take.
  if (words.length > MAX_WORDS || /^(?:it|this|that|these|those|they|he|she|which|what|who)$/iu.test(subject)) return undefined;
  if (words.some((word) => PHRASE_END.has(bare(word)) && !/^(?:it|too)$/u.test(bare(word)))) return undefined;
  // The question's own favourite ("...treats besides coconut milk ice cream?") is not the one asked for.
  const asked = new Set(termsOf(question));
  if (termsOf(subject).every((term) => asked.has(term))) return OWN_FAVOURITE;
  return subject;
}

/** What fills the gap from the words after the question's phrase (`rest`). */
function fill(after: string, copular: boolean, askedKeys: ReadonlySet<string>, nameWords: ReadonlySet<string>): string | undefined {
  let rest = after;
  if (copular) {
    // "What is Jon's favourite style?" is filled by what the line says the phrase is ("my favourite style
    // is contemporary"); words after the phrase that do not say what it is fill nothing.
    const complement = /^\s*(?:is|was|are|were|['’]s)\s+/iu.exec(rest);
    if (!complement) return undefined;
    rest = rest.slice(complement[0].length);
  }
  return filler(rest, askedKeys, nameWords);
}

/** Whether a question's gap follows its word at `index`: nothing follows but stopwords, or a modifier does. */
function endsAtGap(asked: readonly Token[], index: number): boolean {
  const rest = asked.slice(index + 1);
  if (rest.every((token) => !token.content)) return true;
  const next = rest[0];
  return next !== undefined && MODIFIER_OPENERS.has(next.word);
}

/** Words that come between a modifier's opener and its words ("after the charity race"). */
const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'his', 'her', 'their', 'our', 'your', 'its', 'this', 'that', 'these', 'those', 'some']);

/**
 * Whether the question's word at `index` sits in a modifier rather than in its own phrase: "What did
 * Melanie realize after the charity race?" has its gap after "realize", and a line's words after "charity
 * race" (or "race") do not fill it. The modifier is its opener, then determiners and content words.
 */
function inModifier(asked: readonly Token[], index: number): boolean {
  let at = index - 1;
  while (at >= 0 && (asked[at]?.content || DETERMINERS.has(asked[at]?.word ?? ''))) at--;
  return at >= 0 && MODIFIER_OPENERS.has(asked[at]?.word ?? '');
}

/** Pronouns that are a verb's object when no noun follows them ("remind her of", "told them about"). */
const OBJECT_PRONOUNS = new Set(['me', 'him', 'her', 'us', 'them']);

/**
 * Whether the question's word at `index` is a verb because an object pronoun follows it: "What does the
 * photo on Joanna's cork board remind her of?" has its verb after a modifier ("on Joanna's cork board"),
 * which inModifier alone would take the verb to be part of.
 */
function takesObject(asked: readonly Token[], index: number): boolean {
  return OBJECT_PRONOUNS.has(asked[index + 1]?.word ?? '') && asked[index + 2]?.content !== true;
}

/**
 * Whether the question asks what something is ("What was grandma's gift to Caroline?"): its gap is the
 * complement of "is", which a line gives after the phrase only with an "is" between.
 */
function isCopular(asked: readonly Token[]): boolean {
  // A question that ends on its preposition asks for that preposition's object ("What was Joanna's
  // audition for?", "What is the bowl a reminder of?"), which a line gives after the phrase with no "is".
  const last = asked[asked.length - 1]?.word ?? '';
  if (MODIFIER_OPENERS.has(last) || last === 'of') return false;
  const verb = asked.slice(1, 5).find((token) => isAuxiliary(token.word));
  return verb !== undefined && /^(?:is|are|was|were)$/u.test(verb.word) && !asked.some((token) => token.content && /ing$/u.test(token.word));
}

/** A clause's end: punctuation, or a dash between spaces. */
const CLAUSE_END = /[,;:!?.()"“”]|\s[–—-]\s/u;

/** One to three words: an item of a list. */
const ITEM = String.raw`(?:[\p{L}\p{N}'’-]+\s+){0,2}[\p{L}\p{N}'’-]+`;

/** A clause that is one item: a list may go on after it. */
const LONE_ITEM = new RegExp(String.raw`^\s*${ITEM}\s*$`, 'u');

/** Items after a first one, the last after "and" or "or", up to the sentence's end (", faith and strength."). */
const LIST_TAIL = new RegExp(String.raw`^(?:\s*,\s*${ITEM})*\s*,?\s+(?:and|or)\s+${ITEM}(?=\s*(?:[.;:!?)]|$))`, 'u');

/**
 * The clause `rest` opens with; a list of short items keeps all its items although commas part them: "it
 * stands for love, faith and strength" is filled by all three.
 */
function listed(rest: string): string {
  const first = rest.split(CLAUSE_END)[0] ?? '';
  if (!LONE_ITEM.test(first)) return first;
  const tail = LIST_TAIL.exec(rest.slice(first.length));
  return tail ? first + tail[0] : first;
}

/** A time said in words: "last week", "yesterday", "two days ago". */
const TIME_PHRASE = `(?:(?:last|next|this|that|every)\\s+(?:week(?:end)?|month|year|night|morning|afternoon|evening|summer|winter|spring|fall|autumn|time|${WEEKDAY_NAMES})|yesterday|today|tonight|tomorrow|lately|recently|just now|the other day|(?:a|one|two|three|a few|a couple of)\\s+(?:days?|weeks?|months?|years?)\\s+ago)`;

/**
 * A time said between the question's phrase and its filler: "I had an audition yesterday for a writing
 * gig", "Took a short trip last week to Rome to clear my mind". It times the thing; it does not fill the gap.
 */
const LEADING_TIME = new RegExp(`^\\s*${TIME_PHRASE}\\b`, 'iu');

/** A time with the "on" of a weekday, not a possessive ("tomorrow's" names a thing). */
const TIMED = `(?:on\\s+(?:${WEEKDAY_NAMES})|${TIME_PHRASE})\\b(?!['’])`;

/** A time that opens the phrase, with its comma: "Last week, we had...". */
const OPENING_PHRASE_TIME = new RegExp(`^\\s*${TIMED},?\\s*`, 'iu');

/** A time that opens a later clause, with its comma: "..., yesterday I...". */
const OPENING_TIME = new RegExp(`([,(]\\s*)${TIMED},?\\s*`, 'giu');

/** A time inside a clause, the space before it: "dinner together last night", "printed it on Friday". */
const INNER_TIME = new RegExp(`\\s+${TIMED}`, 'giu');

/** A subject the answer opens with once a leading time is gone: "Yesterday, I took up..." -> "took up...". */
const LEADING_SUBJECT = /^(?:i|we|i've|we've|i'm|we're)\s+(?=\S)/iu;

/**
 * A phrase less the times it says ("dinner together last night" -> "dinner together", "Last week, we had a
 * meaningful experience" -> "had a meaningful experience"): a "what" question asks for a thing or a deed,
 * which its time only places; LoCoMo's and people's answers leave it out. The phrase unchanged when it is
 * only a time.
 */
export function withoutTimes(phrase: string): string {
  let out = phrase.trim();
  // "Yesterday, I took up..." loses its subject with its time: what is left answers as a deed.
  if (OPENING_PHRASE_TIME.test(out)) out = out.replace(OPENING_PHRASE_TIME, '').replace(LEADING_SUBJECT, '');
  out = out.replace(OPENING_TIME, '$1').replace(INNER_TIME, '').replace(/\(\s*\)/gu, '').replace(/\s{2,}/gu, ' ');
  out = out.replace(/^[,;:\s-]+|[,;:\s-]+$/gu, '');
  return /[\p{L}\p{N}]/u.test(out) ? out : phrase;
}

/**
 * The words of `rest` up to its clause's end, less a time it opens with (LEADING_TIME), the stopwords, the
 * question's words and its names at its start ("to Rome" in a line that answers "What did Jon take a trip
 * to Rome for?").
 */
function filler(rest: string, askedKeys: ReadonlySet<string>, nameWords: ReadonlySet<string>): string | undefined {
  const clause = listed(rest.replace(LEADING_TIME, ''));
  const parts = clause.split(/\s+/u).filter((part) => /[\p{L}\p{N}]/u.test(part));
  // Prepositions and articles lead to the filler ("for mental health"); a clause's own start ("and it was
  // awesome") means the line says something else after the question's phrase. "That" opens what was
  // realised or said ("I realised that self-care matters").
  let from = bare(parts[0] ?? '') === 'that' ? 1 : 0;
  // A pronoun for a thing fills the gap itself ("fixed it on Friday"): what it stands for is said
  // elsewhere, and the words after it only place or time it. A person's ("invited me to a class") leads on.
  if (/^(?:it|them)$/u.test(bare(parts[from] ?? ''))) {
    const next = bare(parts[from + 1] ?? '');
    if (next === '' || MODIFIER_OPENERS.has(next)) return undefined;
  }
  for (; from < parts.length; from++) {
    const word = bare(parts[from] ?? '');
    if (PHRASE_END.has(word) || word === 'and') return undefined;
    if (!isStopword(word) && !askedKeys.has(wordKey(stem(word))) && !nameWords.has(word)) break;
  }
  // An article stays with its noun: "a dance studio" reads as an answer, "dance studio" as a label.
  if (from > 0 && /^(?:a|an|the)$/u.test(bare(parts[from - 1] ?? ''))) from--;
  const out: string[] = [];
  for (let at = from; at < parts.length && out.length < MAX_WORDS; at++) {
    const word = bare(parts[at] ?? '');
    if (PHRASE_END.has(word)) break;
    // "and" joins a list's items ("Bach and Mozart") but also the next clause ("and we loved it").
    if (word === 'and' && PHRASE_END.has(bare(parts[at + 1] ?? ''))) break;
    // The question's own modifier ends the filler: "What did Nate take to the beach?" over "I took my
    // turtles to the beach in Tampa" is filled by "turtles".
    if (out.length > 0 && MODIFIER_OPENERS.has(word) && asksNext(parts, at + 1)) break;
    out.push(parts[at] ?? '');
  }
  while (out.length > 0 && isStopword(bare(out[out.length - 1] ?? ''))) out.pop();
  // A list's comma stays inside it, not after its last item ("pots, and it was fun" gives "pots").
  return out.length > 0 ? out.join(' ').replace(/[,;:]+$/u, '') : undefined;

  /** Whether the first content word from `at` on is one of the question's. */
  function asksNext(words: readonly string[], at: number): boolean {
    for (let next = at; next < words.length; next++) {
      const word = bare(words[next] ?? '');
      if (isStopword(word)) continue;
      return askedKeys.has(wordKey(stem(presentOf(word))));
    }
    return false;
  }
}

/** Subjects that may go on a reason's clause rather than open the next one. */
const REASON_SUBJECTS = new Set(['i', 'we', 'they']);

/** At most this many words of a reason: a reason is a clause, a little longer than a gap's phrase. */
const MAX_REASON_WORDS = 10;

/** Words that give a reason: what follows answers "why". */
const REASON = /(?:^|[\s,(])(?:because(?:\s+of)?|['’]?cause|cos|since|so that)\s+/iu;

/** A subject with its "be" that opens a reason and says nothing of it ("because it's bright"). */
const SUBJECT_BE = /^(?:it['’]s|i['’]m|they['’]re|we['’]re|he['’]s|she['’]s|you['’]re|it\s+is|it\s+was|they\s+are|i\s+am|i\s+was)\s+/iu;

/**
 * The reason a line gives, for a "why" question: the words after "because", "'cause", "since" or "so that"
 * up to the end of their clause ("I picked this color because it's bright and bold" gives "bright and
 * bold"). Undefined when the line gives none.
 */
export function reasonOf(sentence: string): string | undefined {
  const text = withoutLabel(sentence);
  const marker = REASON.exec(text);
  if (!marker) return undefined;
  let rest = text.slice((marker.index ?? 0) + marker[0].length);
  rest = rest.replace(SUBJECT_BE, '');
  const clause = rest.split(CLAUSE_END)[0] ?? '';
  const out: string[] = [];
  for (const part of clause.split(/\s+/u).filter((word) => /[\p{L}\p{N}]/u.test(word))) {
    const word = bare(part);
    // A reason may have its own subject ("'cause they help LGBTQ+ folks"); another clause ends it.
    if (out.length > 0 && PHRASE_END.has(word) && !REASON_SUBJECTS.has(word)) break;
    if (out.length >= MAX_REASON_WORDS) break;
    out.push(part);
  }
  while (out.length > 0 && isStopword(out[out.length - 1]?.toLowerCase() ?? '')) out.pop();
  return out.length > 0 ? out.join(' ') : undefined;
}
