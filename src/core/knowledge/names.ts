import type { EntityType } from '../../providers/spec.js';

/**
 * Name normalisation and the alias rules shared by the extractor (within one text) and the knowledge
 * service (across memories). Pure and deterministic.
 */

/** Legal-form suffixes that do not change which company is meant. */
const COMPANY_SUFFIXES = new Set([
  'corp', 'corporation', 'inc', 'incorporated', 'ltd', 'limited', 'llc', 'gmbh', 'co', 'company', 'plc', 'ag',
  'sa', 'srl', 'bv', 'nv', 'pty', 'llp', 'lp', 'se', 'oy', 'ab', 'as', 'kk',
]);

const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'dame', 'mx']);

/** Lower case, accents and punctuation removed, spaces collapsed; "&" becomes "and". */
export function normalise(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^the\s+/, '')
    .replace(/\s+/g, ' ');
}

/** The normalised name without company suffixes or honorifics: "Acme Corp." and "ACME" both give "acme". */
export function core(name: string, type?: EntityType): string {
  let tokens = normalise(name).split(' ').filter(Boolean);
  if (type === undefined || type === 'company') {
    while (tokens.length > 1 && COMPANY_SUFFIXES.has(tokens[tokens.length - 1] ?? '')) tokens = tokens.slice(0, -1);
  }
  if (type === undefined || type === 'person') {
    while (tokens.length > 1 && HONORIFICS.has(tokens[0] ?? '')) tokens = tokens.slice(1);
  }
  return tokens.join(' ');
}

export function tokens(name: string, type?: EntityType): string[] {
  const text = core(name, type);
  return text ? text.split(' ') : [];
}

/** Initials of a multi-word name ("international business machines" -> "ibm"); '' for one word. */
export function acronym(name: string, type?: EntityType): string {
  const words = tokens(name, type).filter((word) => word !== 'and' && word !== 'of');
  return words.length >= 2 ? words.map((word) => word[0] ?? '').join('') : '';
}

/** Character trigrams of the core name, padded so short names still have some. */
function trigrams(text: string): Map<string, number> {
  const padded = `  ${text} `;
  const grams = new Map<string, number>();
  for (let i = 0; i + 3 <= padded.length; i++) {
    const gram = padded.slice(i, i + 3);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient of character trigrams, 0-1. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = trigrams(a);
  const y = trigrams(b);
  let shared = 0;
  let total = 0;
  for (const [gram, count] of x) {
    shared += Math.min(count, y.get(gram) ?? 0);
    total += count;
  }
  for (const count of y.values()) total += count;
  return total === 0 ? 0 : (2 * shared) / total;
}

/** Keys under which an entity can be found by the names it goes by (stored, and indexed by LanceDB). */
export function matchKeys(names: readonly string[], type: EntityType): string[] {
  const keys = new Set<string>();
  for (const name of names) {
    const text = core(name, type);
    if (!text) continue;
    keys.add(`n:${text}`);
    for (const token of text.split(' ')) if (token.length >= 2) keys.add(`t:${token}`);
    const initials = acronym(name, type);
    if (initials.length >= 2) keys.add(`n:${initials}`);
    const compact = text.replace(/ /g, '');
    if (compact !== text) keys.add(`n:${compact}`);
  }
  return [...keys].sort();
}

/** Keys to look up candidates for an entity with these names (a superset of what could match). */
export function lookupKeys(names: readonly string[], type: EntityType): string[] {
  const keys = new Set(matchKeys(names, type));
  for (const name of names) {
    const text = core(name, type);
    // A one-word company name may be the acronym or the first word of a longer stored name.
    if (text && !text.includes(' ')) keys.add(`t:${text}`);
  }
  return [...keys].sort();
}

const isInitial = (token: string) => token.length === 1;

/** Person name parts: given name (or initial) and family name. */
function personParts(name: string): { first: string; last: string; count: number } {
  const parts = tokens(name, 'person');
  return { first: parts[0] ?? '', last: parts.length > 1 ? (parts[parts.length - 1] ?? '') : '', count: parts.length };
}

/** How strongly two names can denote the same entity of `type`: 0 no, 1 weak (needs evidence), 2 strong. */
export function nameMatch(a: string, b: string, type: EntityType): 0 | 1 | 2 {
  const x = core(a, type);
  const y = core(b, type);
  if (!x || !y) return 0;
  if (x === y) {
    // A bare given name equal to a bare given name: the same word, not necessarily the same person.
    return type === 'person' && !x.includes(' ') ? 1 : 2;
  }
  if (type === 'person') {
    const p = personParts(a);
    const q = personParts(b);
    if (p.count >= 2 && q.count >= 2) {
      if (p.last !== q.last) return similarity(x, y) >= 0.85 && p.last[0] === q.last[0] ? 2 : 0;
      // "S. Chen" / "Sarah Chen"; "Sarah Chen" / "Sarah J. Chen".
      if (p.first === q.first) return 2;
      if ((isInitial(p.first) && q.first.startsWith(p.first)) || (isInitial(q.first) && p.first.startsWith(q.first))) return 2;
      return 0;
    }
    // "Sarah" / "Sarah Chen": the given name only; "Chen" / "Sarah Chen": the family name only.
    const single = p.count === 1 ? p : q;
    const full = p.count === 1 ? q : p;
    if (single.first === full.first && !isInitial(single.first)) return 1;
    if (single.first === full.last) return 1;
    return 0;
  }
  // Organisations and the rest: "Acme" / "Acme Corporation" reduce to the same core above; acronyms here.
  const ax = acronym(a, type);
  const ay = acronym(b, type);
  if ((ax.length >= 2 && ax === y.replace(/ /g, '')) || (ay.length >= 2 && ay === x.replace(/ /g, ''))) return 2;
  if (x.replace(/ /g, '') === y.replace(/ /g, '')) return 2;
  if (Math.min(x.length, y.length) >= 5 && similarity(x, y) >= 0.8) return 2;
  return 0;
}

/** True for a person name that is only a given name or a family name. */
export function isPartialPersonName(name: string): boolean {
  return tokens(name, 'person').length === 1;
}

/**
 * How complete a name is, to pick an entity's primary name among its aliases: more words (initials count
 * for little), mixed case over ALL CAPS, longer.
 */
export function nameQuality(name: string, type: EntityType): number {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const full = words.filter((word) => word.replace(/[^\p{L}]/gu, '').length > 1).length;
  const shouting = name.length > 1 && name === name.toUpperCase() && /\p{L}/u.test(name) ? 1 : 0;
  const suffix = type === 'company' && core(name, 'company') !== normalise(name) ? 1 : 0;
  return Math.min(full, 4) * 100 + suffix * 10 - shouting * 50 + Math.min(name.length, 40) / 100;
}
