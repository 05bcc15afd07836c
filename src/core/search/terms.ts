import stemWord from 'wink-porter2-stemmer';

/**
 * The words of a query and of a memory as search compares them: lower-cased, accents folded, function words
 * dropped, each word reduced to its Porter2 stem ("punctured" and "punctures" -> "punctur"). The keyword
 * index (LanceDB's full-text index: English stemmer, stop words removed, ASCII folding) tokenises the same
 * way, so a term that this module says a memory contains is one its BM25 score counted.
 */

/**
 * The stop words LanceDB's full-text index drops (`removeStopWords`: tantivy's English list, Snowball's), as
 * the words its tokenizer makes of them: the list's forms with an apostrophe ("isn't") are two words there
 * ("isn", "t"), whole only in the list, so they never match and are left out here.
 */
const INDEX_STOPWORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
    'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
    'been being have has had having do does did doing would should could ought cannot a an the and but if or because ' +
    'as until while of at by for with about against between into through during before after above below to from up ' +
    'down in out on off over under again further then once here there when where why how all any both each few more ' +
    'most other some such no nor not only own same so than too very'
  ).split(' '),
);

/**
 * Function words: they say what kind of question it is, not what it is about. Lucene's English stop words
 * plus pronouns, auxiliaries and question words, so "What did Priya research?" weighs only "priya"
 * and "research".
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with ' +
    'i me my mine myself we us our ours you your yours he him his she her hers it its them theirs ' +
    'am been being were do does did doing done have has had having can could shall should would may might must ' +
    'what which who whom whose when where why how ' +
    'about above after again all also any both each few from further here just more most nor off once only ' +
    'other own same so some than too under until up very over out while because before below between during ' +
    "s t d ll m re ve don didn doesn isn wasn aren weren won wouldn shouldn couldn hasn haven hadn"
  ).split(/\s+/),
);

const cache = new Map<string, string>();
const CACHE_LIMIT = 50_000;

/** The stem of one lower-case word (memoised: the same words recur across memories and queries). */
export function stem(word: string): string {
  let stemmed = cache.get(word);
  if (stemmed === undefined) {
    stemmed = stemWord(word);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(word, stemmed);
  }
  return stemmed;
}

/** Lower-cased words with accents folded ("Café" -> "cafe"); apostrophes split ("Sarah's" -> "sarah", "s"). */
export function tokens(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** A word LanceDB's full-text index drops. */
export function isIndexStopword(token: string): boolean {
  return INDEX_STOPWORDS.has(token);
}

/**
 * The terms LanceDB's full-text index makes of a text, in order, repeats kept: the words of `tokens`, its stop
 * words dropped, each stemmed. What its BM25 counts: a passage's length is their number and a term's
 * frequency its repeats (a test compares scores computed from them with the index's own).
 */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  for (const token of tokens(text)) if (!INDEX_STOPWORDS.has(token)) out.push(stem(token));
  return out;
}

/** The stemmed content words of a text, in order, repeats kept (for phrases). */
export function termSequence(text: string): string[] {
  const out: string[] = [];
  for (const token of tokens(text)) if (!STOPWORDS.has(token)) out.push(stem(token));
  return out;
}

/** A query's distinct terms, each with the first word of the query that gave it (for explanations). */
export interface QueryTerm {
  readonly term: string;
  readonly word: string;
}

export function queryTerms(query: string): QueryTerm[] {
  const seen = new Map<string, string>();
  for (const token of tokens(query)) {
    if (STOPWORDS.has(token)) continue;
    const term = stem(token);
    if (!seen.has(term)) seen.set(term, token);
  }
  return [...seen].map(([term, word]) => ({ term, word }));
}

/** Does `sequence` hold `phrase` as consecutive terms? */
export function containsPhrase(sequence: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0 || phrase.length > sequence.length) return false;
  outer: for (let i = 0; i + phrase.length <= sequence.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (sequence[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/** Character ranges [start, end) of the words of `text` whose stems are among `terms` (for highlighting). */
export function highlightRanges(text: string, terms: ReadonlySet<string>): [number, number][] {
  const ranges: [number, number][] = [];
  if (terms.size === 0) return ranges;
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const token = match[0].normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
    if (STOPWORDS.has(token) || !terms.has(stem(token))) continue;
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}
