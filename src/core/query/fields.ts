import { MemError } from '../../errors.js';
import type { MemoryRecord } from '../types.js';

/** The fields of a memory that a structured query can return (`fields`), filter on and sort by. */
export const MEMORY_FIELDS = ['id', 'title', 'content', 'description', 'author', 'tags', 'metadata', 'spaceId', 'createdAt', 'updatedAt'] as const;
export type MemoryField = (typeof MEMORY_FIELDS)[number];

/** Built-in fields that hold one string. */
export type TextField = 'id' | 'title' | 'content' | 'description' | 'author' | 'spaceId';
export type DateField = 'createdAt' | 'updatedAt';

/** Some fields of a memory (always its id): what a query reads, without content it does not need. */
export type MemoryView = Pick<MemoryRecord, 'id'> & Partial<Pick<MemoryRecord, MemoryField>>;

/** What a sort key or a filter condition names. */
export type FieldRef =
  | { readonly kind: 'text'; readonly name: TextField }
  | { readonly kind: 'tags'; readonly name: 'tags' }
  | { readonly kind: 'date'; readonly name: DateField }
  | { readonly kind: 'metadata'; readonly name: 'metadata'; readonly path: readonly string[] };

export type SortRef = FieldRef | { readonly kind: 'score'; readonly name: 'score' };

export interface SortKey {
  readonly field: SortRef;
  /** 1 ascending, -1 descending. */
  readonly direction: 1 | -1;
}

const TEXT_FIELDS = new Set<string>(['id', 'title', 'content', 'description', 'author', 'spaceId']);
const FIELD_LIST = 'id, title, content, description, author, tags, spaceId, createdAt, updatedAt and metadata.<path>';

/** `filters.$or[0]` + `title` -> `filters.$or[0].title`; array indices go in brackets. */
export function childPath(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
}

export function invalid(path: string, problem: string, hint?: string): MemError {
  return new MemError('VALIDATION_ERROR', `${path}: ${problem}`, { details: { path }, ...(hint ? { hint } : {}) });
}

/**
 * A field name of a filter or sort: one of the built-in fields, or `metadata.` and a dotted path into the
 * metadata object. Anything else (quotes, unknown names) is an unknown field: names never reach SQL.
 */
export function resolveField(name: string, path: string): FieldRef {
  if (TEXT_FIELDS.has(name)) return { kind: 'text', name: name as TextField };
  if (name === 'tags') return { kind: 'tags', name: 'tags' };
  if (name === 'createdAt' || name === 'updatedAt') return { kind: 'date', name };
  if (name === 'metadata') {
    throw invalid(path, 'metadata needs a path, such as metadata.status', 'Address a metadata value with a dotted path.');
  }
  if (name.startsWith('metadata.')) {
    const segments = name.slice('metadata.'.length).split('.');
    if (segments.some((segment) => segment === '')) throw invalid(path, `invalid metadata path "${name}" (empty segment)`);
    return { kind: 'metadata', name: 'metadata', path: segments };
  }
  throw invalid(path, `unknown field ${JSON.stringify(name)}; fields are ${FIELD_LIST}`);
}

export const MAX_SORT_KEYS = 8;

/**
 * `sort` of a query: field -> 1 | -1, applied in order. Default: relevance (score) when there is query
 * text, else createdAt descending. Ties are always broken by id, in the direction of the last key, so
 * pages never overlap or skip.
 */
export function parseSort(sort: Readonly<Record<string, 1 | -1>> | undefined, hasQuery: boolean): SortKey[] {
  const entries = Object.entries(sort ?? {});
  if (entries.length > MAX_SORT_KEYS) throw invalid('sort', `at most ${MAX_SORT_KEYS} sort fields`);
  const keys: SortKey[] = entries.map(([name, direction]) => {
    const path = childPath('sort', name);
    if (direction !== 1 && direction !== -1) throw invalid(path, 'sort direction must be 1 (ascending) or -1 (descending)');
    if (name === 'score') {
      if (!hasQuery) throw invalid(path, 'score exists only when the query has text (query)');
      return { field: { kind: 'score', name: 'score' }, direction };
    }
    const field = resolveField(name, path);
    if (field.kind === 'tags') throw invalid(path, 'cannot sort by tags (a list)');
    return { field, direction };
  });
  if (keys.length === 0) {
    keys.push(
      hasQuery
        ? { field: { kind: 'score', name: 'score' }, direction: -1 }
        : { field: { kind: 'date', name: 'createdAt' }, direction: -1 },
    );
  }
  if (!keys.some((key) => key.field.kind === 'text' && key.field.name === 'id')) {
    keys.push({ field: { kind: 'text', name: 'id' }, direction: keys.at(-1)?.direction ?? -1 });
  }
  return keys;
}

/** `fields` of a query: which fields each result carries (id always; `score` whenever there is query text). */
export function parseFields(fields: readonly string[] | undefined): MemoryField[] {
  if (fields === undefined) return [...MEMORY_FIELDS];
  const chosen = new Set<MemoryField>(['id']);
  fields.forEach((name, index) => {
    if (name === 'score') return;
    if (!(MEMORY_FIELDS as readonly string[]).includes(name)) {
      throw invalid(childPath('fields', index), `unknown field ${JSON.stringify(name)}; fields are ${MEMORY_FIELDS.join(', ')} and score`);
    }
    chosen.add(name as MemoryField);
  });
  return MEMORY_FIELDS.filter((field) => chosen.has(field));
}

/** The column a field is stored in (metadata paths all live in the metadata column). */
export function fieldColumn(field: FieldRef): MemoryField {
  return field.kind === 'metadata' ? 'metadata' : field.name;
}
