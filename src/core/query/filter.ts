import { childPath, invalid, resolveField, type DateField, type FieldRef, type MemoryField, type TextField } from './fields.js';
import { parseDateValue, type Zone } from './time.js';

/**
 * The filter language of POST /v1/query, parsed into a tree that both the LanceDB translation
 * (store/lancedb/predicate.ts) and the reference evaluator (evaluate.ts) read.
 *
 *   { "tags": "acme" }                                       a bare value means $eq
 *   { "metadata.priority": { "$gte": 2, "$lt": 5 } }         several operators on one field: all must hold
 *   { "$or": [ { "spaceId": "work" }, { "tags": { "$in": ["acme", "globex"] } } ] }
 *
 * Several fields in one object must all match ($and). `$eq`/`$ne` are kept as `$in`/`$nin` of one value:
 * for every field kind they mean the same thing (tags: contains / does not contain; a date-only value: within
 * / outside that day; a missing value: $ne/$nin true), which keeps each consumer to four cases.
 */
export type Scalar = string | number | boolean;

/** An inclusive range of instants (epoch ms); a date-time is a range of one instant, a date a whole day. */
export interface DateRange {
  readonly start: number;
  readonly end: number;
}

export type SetOp = 'in' | 'nin';
export type OrderOp = 'gt' | 'gte' | 'lt' | 'lte';

export type Condition =
  | { readonly type: 'text'; readonly field: TextField; readonly op: SetOp | OrderOp; readonly values: readonly string[] }
  | { readonly type: 'tags'; readonly op: SetOp; readonly values: readonly string[] }
  | { readonly type: 'date'; readonly field: DateField; readonly op: SetOp | OrderOp; readonly values: readonly DateRange[] }
  | { readonly type: 'metadata'; readonly path: readonly string[]; readonly op: SetOp | OrderOp; readonly values: readonly Scalar[] };

export type FilterNode =
  | Condition
  | { readonly type: 'and'; readonly children: readonly FilterNode[] }
  | { readonly type: 'or'; readonly children: readonly FilterNode[] };

export const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'] as const;
type Operator = (typeof OPERATORS)[number];

/** Nesting beyond this is refused (a filter is written by people and programs, not generated unboundedly). */
export const MAX_DEPTH = 32;
/** Conditions in one filter, and values in one $in/$nin. */
export const MAX_CONDITIONS = 1000;
export const MAX_IN_VALUES = 1000;

const OP_OF: Record<Operator, SetOp | OrderOp> = {
  $eq: 'in',
  $ne: 'nin',
  $in: 'in',
  $nin: 'nin',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Strings of the built-in fields are stored as UTF-8 without NUL (LanceDB turns a lone surrogate into
 * U+FFFD, literal() drops NUL), so a filter value is normalised the same way: LanceDB and the evaluator
 * then compare the very same string.
 */
function storedForm(value: string): string {
  return value.replaceAll('\0', '').replace(LONE_SURROGATE, '\uFFFD');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ParseOptions {
  /** Date-only values mean that whole day in this zone. */
  readonly zone: Zone;
  /** Where the filter sits in the request, for messages (default `filters`). */
  readonly path?: string;
}

class FilterParser {
  private conditions = 0;

  constructor(private readonly zone: Zone) {}

  object(raw: unknown, path: string, depth: number): FilterNode {
    if (depth > MAX_DEPTH) throw invalid(path, `filters nest deeper than ${MAX_DEPTH} levels`);
    if (!isPlainObject(raw)) throw invalid(path, `expected a filter object, got ${describe(raw)}`);
    const children: FilterNode[] = [];
    for (const [key, value] of Object.entries(raw)) {
      const keyPath = childPath(path, key);
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || value.length === 0 || !value.every(isPlainObject)) {
          throw invalid(keyPath, `${key} expects a non-empty array of filter objects, got ${describe(value)}`);
        }
        const parts = value.map((item, index) => this.object(item, childPath(keyPath, index), depth + 1));
        children.push(combine(key === '$and' ? 'and' : 'or', parts));
      } else if (key.startsWith('$')) {
        throw invalid(path, `unknown operator ${key}; at this level only $and and $or (or a field name) may appear`);
      } else {
        children.push(this.field(resolveField(key, keyPath), value, keyPath));
      }
    }
    return combine('and', children);
  }

  private field(field: FieldRef, raw: unknown, path: string): FilterNode {
    if (!isPlainObject(raw)) {
      if (Array.isArray(raw)) {
        throw invalid(path, 'a bare array is not a value; use {"$in": [...]} (any of) or {"$nin": [...]}');
      }
      return this.condition(field, '$eq', raw, path);
    }
    const entries = Object.entries(raw);
    if (entries.length === 0) throw invalid(path, `expected a value or operators (${OPERATORS.join(', ')}), got {}`);
    return combine(
      'and',
      entries.map(([key, operand]) => {
        if (!(OPERATORS as readonly string[]).includes(key)) {
          throw invalid(path, `unknown operator ${key}; operators are ${OPERATORS.join(', ')}`);
        }
        return this.condition(field, key as Operator, operand, childPath(path, key));
      }),
    );
  }

  private condition(field: FieldRef, operator: Operator, raw: unknown, path: string): Condition {
    if (++this.conditions > MAX_CONDITIONS) throw invalid(path, `a filter may hold at most ${MAX_CONDITIONS} conditions`);
    const op = OP_OF[operator];
    let items: readonly unknown[];
    let itemPath: (index: number) => string;
    if (operator === '$in' || operator === '$nin') {
      if (!Array.isArray(raw)) throw invalid(path, `${operator} expects an array of values, got ${describe(raw)}`);
      if (raw.length > MAX_IN_VALUES) throw invalid(path, `${operator} takes at most ${MAX_IN_VALUES} values`);
      items = raw;
      itemPath = (index) => childPath(path, index);
    } else {
      items = [raw];
      itemPath = () => path;
    }
    switch (field.kind) {
      case 'text':
        return { type: 'text', field: field.name, op, values: items.map((item, i) => storedForm(this.string(item, itemPath(i)))) };
      case 'tags':
        if (op !== 'in' && op !== 'nin') {
          throw invalid(path, `tags is a list: it takes $eq, $ne, $in and $nin (contains / does not contain), not ${operator}`);
        }
        return { type: 'tags', op, values: items.map((item, i) => storedForm(this.string(item, itemPath(i)))) };
      case 'date':
        return { type: 'date', field: field.name, op, values: items.map((item, i) => this.date(item, itemPath(i))) };
      case 'metadata':
        return { type: 'metadata', path: field.path, op, values: items.map((item, i) => this.scalar(item, itemPath(i))) };
    }
  }

  private string(value: unknown, path: string): string {
    if (typeof value !== 'string') throw invalid(path, `expected a string, got ${describe(value)}`);
    return value;
  }

  private date(value: unknown, path: string): DateRange {
    const range = typeof value === 'string' || typeof value === 'number' ? parseDateValue(value, this.zone) : null;
    if (!range) {
      throw invalid(
        path,
        `expected an ISO 8601 date (2025-01-31) or date-time with a zone (2025-01-31T09:00:00Z), or epoch milliseconds; got ${describe(value)}`,
      );
    }
    return range;
  }

  private scalar(value: unknown, path: string): Scalar {
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw invalid(path, `expected a string, number or boolean, got ${describe(value)}`);
  }
}

/** Flattens nested and/and and or/or; an and of one child is that child. */
function combine(type: 'and' | 'or', parts: readonly FilterNode[]): FilterNode {
  const children = parts.flatMap((part) => (part.type === type ? part.children : [part]));
  return children.length === 1 ? (children[0] as FilterNode) : { type, children };
}

/**
 * Parses `filters`; null when there is nothing to filter on (absent or `{}`). Every problem is a
 * VALIDATION_ERROR whose message starts with the path of the offending part, e.g.
 * `filters.$and[1].metadata.status: unknown operator $foo; ...`.
 */
export function parseFilter(raw: unknown, options: ParseOptions): FilterNode | null {
  if (raw === undefined) return null;
  const node = new FilterParser(options.zone).object(raw, options.path ?? 'filters', 1);
  return node.type === 'and' && node.children.length === 0 ? null : node;
}

/** The fields (columns) a filter reads. */
export function filterFields(node: FilterNode | null, into = new Set<MemoryField>()): Set<MemoryField> {
  if (node === null) return into;
  if (node.type === 'and' || node.type === 'or') {
    for (const child of node.children) filterFields(child, into);
  } else if (node.type === 'text' || node.type === 'date') {
    into.add(node.field);
  } else {
    into.add(node.type === 'tags' ? 'tags' : 'metadata');
  }
  return into;
}

export function depth(node: FilterNode): number {
  return node.type === 'and' || node.type === 'or' ? 1 + Math.max(0, ...node.children.map(depth)) : 1;
}

/**
 * Deepest tree handed to LanceDB. Its SQL parser gives up near 45 nested parentheses; every level adds one,
 * a condition up to two. Deeper parts are evaluated in memory instead (same results, just slower).
 */
export const MAX_PUSHDOWN_DEPTH = 12;

/** True when LanceDB can evaluate the whole filter: built-in fields only, not too deep. */
export function isTranslatable(node: FilterNode | null): boolean {
  return node === null || (!filterFields(node).has('metadata') && depth(node) <= MAX_PUSHDOWN_DEPTH);
}

/**
 * The part of a filter LanceDB can apply first: the top-level AND conditions that are translatable.
 * It is implied by the filter (every match satisfies it), so it narrows the candidates without losing any;
 * the whole filter is then evaluated on them.
 */
export function translatablePart(node: FilterNode | null): FilterNode | null {
  if (node === null || isTranslatable(node)) return node;
  if (node.type !== 'and') return null;
  const parts = node.children.filter((child) => isTranslatable(child));
  return parts.length === 0 ? null : combine('and', parts);
}

