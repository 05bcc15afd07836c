import type { MemoryRecord } from '../types.js';
import type { MemoryField, MemoryView, SortKey } from './fields.js';
import type { Condition, FilterNode, OrderOp, Scalar } from './filter.js';

/**
 * The reference evaluator of the filter language: plain code over a memory's fields. The LanceDB translation
 * must agree with it on every filter (test/unit/query-filter.test.ts checks both on the same fixtures), and it
 * is what evaluates metadata paths, which LanceDB cannot see inside the metadata JSON.
 *
 * Rules:
 * - Strings compare by Unicode code point (the byte order of UTF-8, which is LanceDB's order).
 * - tags (a list): $eq/$in match when the list contains the value / any of the values; $ne/$nin when it
 *   does not. A metadata value that is an array follows the same list rule; ordering operators are false
 *   on lists.
 * - metadata values compare as their JSON type: numbers numerically, strings by code point, booleans
 *   false < true. A comparison between different types is false (`{"metadata.priority": "2"}` does not
 *   match the number 2), so $ne/$nin, the negations of $eq/$in, are true for it.
 * - A missing value (metadata path absent, or null, or an object; updatedAt never set): $ne/$nin true,
 *   every other operator false.
 */
export function matches(node: FilterNode, memory: MemoryView): boolean {
  switch (node.type) {
    case 'and':
      return node.children.every((child) => matches(child, memory));
    case 'or':
      return node.children.some((child) => matches(child, memory));
    default:
      return holds(node, memory);
  }
}

function holds(condition: Condition, memory: MemoryView): boolean {
  switch (condition.type) {
    case 'text': {
      const value = read(memory, condition.field);
      if (condition.op === 'in' || condition.op === 'nin') return condition.values.includes(value) === (condition.op === 'in');
      return ordered(compareText(value, condition.values[0] ?? ''), condition.op);
    }
    case 'tags': {
      const tags = read(memory, 'tags');
      return condition.values.some((tag) => tags.includes(tag)) === (condition.op === 'in');
    }
    case 'date': {
      const value = read(memory, condition.field);
      if (condition.op === 'in' || condition.op === 'nin') {
        const within = value !== null && condition.values.some((range) => value >= range.start && value <= range.end);
        return within === (condition.op === 'in');
      }
      const range = condition.values[0];
      if (value === null || !range) return false;
      // A date-only value is a whole day: after it means after its end, before it means before its start.
      if (condition.op === 'gt') return value > range.end;
      if (condition.op === 'gte') return value >= range.start;
      if (condition.op === 'lt') return value < range.start;
      return value <= range.end;
    }
    case 'metadata': {
      const value = metadataValue(read(memory, 'metadata'), condition.path);
      if (condition.op === 'in' || condition.op === 'nin') {
        const candidates = Array.isArray(value) ? value : [value];
        const found = condition.values.some((wanted) => candidates.some((candidate) => candidate === wanted));
        return found === (condition.op === 'in');
      }
      const wanted = condition.values[0];
      if (!isScalar(value) || wanted === undefined || typeof value !== typeof wanted) return false;
      return ordered(compareScalars(value, wanted), condition.op);
    }
  }
}

/** A field the caller did not fetch is a bug in the caller, not a non-match. */
function read<K extends MemoryField>(memory: MemoryView, field: K): MemoryRecord[K] {
  const value = memory[field];
  if (value === undefined) throw new Error(`query evaluation needs the ${field} of ${memory.id}`);
  return value as MemoryRecord[K];
}

function ordered(comparison: number, op: OrderOp): boolean {
  switch (op) {
    case 'gt':
      return comparison > 0;
    case 'gte':
      return comparison >= 0;
    case 'lt':
      return comparison < 0;
    case 'lte':
      return comparison <= 0;
  }
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** The value at a dotted path through nested objects (own properties only); undefined when absent. */
export function metadataValue(metadata: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = metadata;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Code point order (= UTF-8 byte order). JS `<` compares UTF-16 units, which puts U+10000.. before U+E000... */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above every BMP unit: lift them over 0xE000-0xFFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Same-type scalars: numbers numerically, strings by code point, false < true. */
function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  return Number(a) - Number(b);
}

/** Sort rank of a metadata value's type; values that cannot be ordered (missing, lists, objects) sort last. */
function typeRank(value: unknown): number {
  if (typeof value === 'boolean') return 0;
  if (typeof value === 'number' && Number.isFinite(value)) return 1;
  if (typeof value === 'string') return 2;
  return 3;
}

export interface Ranked {
  readonly memory: MemoryView;
  readonly score?: number | undefined;
}

/**
 * The order of `sort` keys. Values that are missing (updatedAt never set, a metadata path absent or not a
 * string/number/boolean) come last in both directions; metadata values of different types order
 * booleans < numbers < strings. This is also LanceDB's order for the built-in columns (nulls last).
 */
export function compareBy(keys: readonly SortKey[]): (a: Ranked, b: Ranked) => number {
  const compareKey = (key: SortKey, a: Ranked, b: Ranked): number => {
    const field = key.field;
    switch (field.kind) {
      case 'score':
        return ((a.score ?? 0) - (b.score ?? 0)) * key.direction;
      case 'text':
        return compareText(read(a.memory, field.name), read(b.memory, field.name)) * key.direction;
      case 'tags':
        return 0;
      case 'date': {
        const x = read(a.memory, field.name);
        const y = read(b.memory, field.name);
        if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
        return (x - y) * key.direction;
      }
      case 'metadata': {
        const x = metadataValue(read(a.memory, 'metadata'), field.path);
        const y = metadataValue(read(b.memory, 'metadata'), field.path);
        const rankX = typeRank(x);
        const rankY = typeRank(y);
        if (rankX === 3 || rankY === 3) return rankX - rankY;
        if (rankX !== rankY) return (rankX - rankY) * key.direction;
        return compareScalars(x as Scalar, y as Scalar) * key.direction;
      }
    }
  };
  return (a, b) => {
    for (const key of keys) {
      const order = compareKey(key, a, b);
      if (order !== 0) return order;
    }
    return 0;
  };
}
