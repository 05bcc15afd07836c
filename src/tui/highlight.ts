/** A run of text, and the entity it names when it names one. */
export interface Segment {
  readonly text: string;
  readonly entityId?: string | undefined;
}

export interface NamedEntity {
  readonly id: string;
  readonly name: string;
  readonly aliases: readonly string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` cut into runs where each mention of an entity (its name or an alias, case-insensitive, as a whole
 * word) is its own segment. Longer names win over the shorter names inside them ("Acme Corp" over "Acme").
 */
export function highlightEntities(text: string, entities: readonly NamedEntity[]): Segment[] {
  const owner = new Map<string, string>();
  for (const entity of entities) {
    for (const name of [entity.name, ...entity.aliases]) {
      const key = name.trim().toLowerCase();
      if (key.length >= 2 && !owner.has(key)) owner.set(key, entity.id);
    }
  }
  if (owner.size === 0 || text.length === 0) return text ? [{ text }] : [];
  const terms = [...owner.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const start = match.index;
    if (start > last) segments.push({ text: text.slice(last, start) });
    segments.push({ text: match[0], entityId: owner.get(match[0].toLowerCase()) });
    last = start + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last) });
  return segments;
}
