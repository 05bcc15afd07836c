import { isStopword, termSequence, tokens } from '../../src/core/search/terms.js';
import { createRandom } from './notes.js';

/**
 * Short queries derived from a corpus, so that the search model is fitted and measured on the shapes people
 * type besides questions: one rare word of an item (a word in at most 1% of the items, at least 4 letters,
 * not a number), and two or three consecutive words of an item. Every item whose indexed text holds the
 * word (or all of the phrase's content words, after stemming) answers the query: that is what someone
 * who types a word they remember is looking for. Seeded: the same corpus gives the same queries.
 */
export interface DerivableItem {
  /** What identifies the item in search results (a memory id, "conversation/dia_id"). */
  readonly key: string;
  readonly spaceId: string;
  /** The text the query's words are taken from (the content as the user wrote it). */
  readonly source: string;
  /** Everything the item is indexed by (title, content, author, context). */
  readonly text: string;
  /** The cross-validation fold it belongs to. */
  readonly fold: string;
}

export interface DerivedQuery {
  readonly shape: 'word' | 'phrase' | 'nonsense';
  readonly fold: string;
  readonly text: string;
  readonly spaceId: string;
  readonly relevant: ReadonlySet<string>;
}

export function derivedQueries(items: readonly DerivableItem[], count: number, seed: number): DerivedQuery[] {
  const random = createRandom(seed);
  const termsOf = new Map(items.map((item) => [item.key, new Set(termSequence(item.text))]));
  const frequency = new Map<string, number>();
  for (const terms of termsOf.values()) for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  // Relevance is decided within the query's space, as the search runs in it.
  const holders = (spaceId: string, terms: readonly string[]) =>
    new Set(items.filter((item) => item.spaceId === spaceId && terms.every((term) => termsOf.get(item.key)?.has(term))).map((item) => item.key));
  const rareLimit = Math.max(2, Math.floor(items.length * 0.01));
  const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(random() * list.length)];
  const out: DerivedQuery[] = [];
  for (let guard = 0, made = 0; made < count && guard < count * 50; guard++) {
    const item = pick(items);
    if (!item) break;
    const words = tokens(item.source).filter((word) => word.length >= 4 && !isStopword(word) && !/^\d+$/.test(word));
    const word = pick(words.filter((candidate) => (frequency.get(termSequence(candidate)[0] ?? '') ?? 0) <= rareLimit));
    const term = word ? termSequence(word)[0] : undefined;
    if (!word || !term) continue;
    out.push({ shape: 'word', fold: item.fold, text: word, spaceId: item.spaceId, relevant: holders(item.spaceId, [term]) });
    made += 1;
  }
  for (let guard = 0, made = 0; made < count && guard < count * 50; guard++) {
    const item = pick(items);
    if (!item) break;
    const words = tokens(item.source);
    const length = 2 + Math.floor(random() * 2);
    const start = Math.floor(random() * Math.max(1, words.length - length));
    const phrase = words.slice(start, start + length);
    const terms = termSequence(phrase.join(' '));
    if (phrase.length < length || terms.length < 2) continue;
    out.push({ shape: 'phrase', fold: item.fold, text: phrase.join(' '), spaceId: item.spaceId, relevant: holders(item.spaceId, terms) });
    made += 1;
  }
  // Made-up words (one to three of them) that no item holds: nothing answers them, so a search should
  // return nothing at the default threshold rather than its nearest guesses.
  const consonants = 'bdfgklmnprstvz';
  const vowels = 'aeiou';
  const letter = (from: string) => from[Math.floor(random() * from.length)] ?? 'a';
  const madeUp = () => Array.from({ length: 3 + Math.floor(random() * 2) }, () => letter(consonants) + letter(vowels)).join('') + letter(consonants);
  for (let guard = 0, made = 0; made < Math.ceil(count / 3) && guard < count * 50; guard++) {
    const item = pick(items);
    if (!item) break;
    const words = Array.from({ length: 1 + Math.floor(random() * 3) }, madeUp);
    if (words.some((word) => (frequency.get(termSequence(word)[0] ?? '') ?? 0) > 0)) continue;
    out.push({ shape: 'nonsense', fold: item.fold, text: words.join(' '), spaceId: item.spaceId, relevant: new Set() });
    made += 1;
  }
  return out;
}
