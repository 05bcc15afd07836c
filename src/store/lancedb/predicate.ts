import type { DateField, TextField } from '../../core/query/fields.js';
import type { Condition, FilterNode } from '../../core/query/filter.js';

/**
 * The ONLY builder of LanceDB where-clauses. LanceDB (DataFusion SQL) has no parameter binding, so every
 * value goes through `literal()`: strings are single-quoted with `'` doubled (backslashes are literal in
 * standard SQL strings), numbers must be finite, and column names come from a fixed allow-list.
 */
export type Column =
  | 'id'
  | 'title'
  | 'content'
  | 'description'
  | 'author'
  | 'metadata'
  | 'account_id'
  | 'memory_id'
  | 'space_id'
  | 'tags'
  | 'created_at'
  | 'updated_at'
  | 'content_hash'
  | 'hash'
  | 'status'
  | 'kind'
  | 'email'
  | 'is_owner'
  | 'turbo'
  | 'key'
  // knowledge tables (knowledge-store.ts)
  | 'type'
  | 'match_keys'
  | 'memory_ids'
  | 'entity_ids'
  | 'entity_id'
  | 'subject_id'
  | 'source_id'
  | 'target_id'
  | 'search_text'
  | 'category'
  | 'confidence'
  | 'valid_to'
  // usage_events
  | 'key_id'
  | 'key_type'
  | 'at'
  | 'job_id'
  // leases (lease-table.ts)
  | 'name'
  | 'holder'
  | 'expires_at';

const COLUMNS = new Set<string>([
  'name',
  'holder',
  'expires_at',
  'job_id',
  'key_id',
  'key_type',
  'at',
  'id',
  'title',
  'content',
  'description',
  'author',
  'metadata',
  'account_id',
  'memory_id',
  'space_id',
  'tags',
  'created_at',
  'updated_at',
  'content_hash',
  'hash',
  'status',
  'kind',
  'email',
  'is_owner',
  'turbo',
  'key',
  'type',
  'match_keys',
  'memory_ids',
  'entity_ids',
  'entity_id',
  'subject_id',
  'source_id',
  'target_id',
  'search_text',
  'category',
  'confidence',
  'valid_to',
]);

export type Predicate = string & { readonly __predicate: unique symbol };

function column(name: Column): string {
  if (!COLUMNS.has(name)) throw new Error(`unknown column ${String(name)}`);
  return name;
}

export function literal(value: string | number | boolean): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`non-finite number in predicate: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  // NUL cannot appear in a SQL literal; it never carries meaning in our values.
  return `'${value.replaceAll('\0', '').replaceAll("'", "''")}'`;
}

/**
 * SQL for a list of strings, for update SET expressions: LanceDB's `update({values})` fails on an empty
 * list ("concat requires input of at least one array"), `make_array()` does not.
 */
export function listLiteral(values: readonly string[]): string {
  return `make_array(${values.map(literal).join(', ')})`;
}

function make(sql: string): Predicate {
  return sql as Predicate;
}

export function eq(name: Column, value: string | number | boolean): Predicate {
  return make(`${column(name)} = ${literal(value)}`);
}

export function isTrue(name: Column): Predicate {
  return make(`${column(name)} = true`);
}

export function gte(name: Column, value: number): Predicate {
  return make(`${column(name)} >= ${literal(value)}`);
}

/** Strictly less than. */
export function lt(name: Column, value: number): Predicate {
  return make(`${column(name)} < ${literal(value)}`);
}

/** Strictly greater than; strings compare byte-wise (keyset paging by id: ULIDs sort by time). */
export function gt(name: Column, value: string | number): Predicate {
  return make(`${column(name)} > ${literal(value)}`);
}

/** Not equal. */
export function ne(name: Column, value: string | number | boolean): Predicate {
  return make(`${column(name)} <> ${literal(value)}`);
}

export function lte(name: Column, value: number): Predicate {
  return make(`${column(name)} <= ${literal(value)}`);
}

export function inList(name: Column, values: readonly string[]): Predicate {
  if (values.length === 0) return make('false');
  return make(`${column(name)} IN (${values.map(literal).join(', ')})`);
}

/** True when the list column contains at least one of the values. */
export function arrayHasAny(name: Column, values: readonly string[]): Predicate {
  if (values.length === 0) return make('false');
  if (values.length === 1) return make(`array_has(${column(name)}, ${literal(values[0] ?? '')})`);
  return make(`array_has_any(${column(name)}, make_array(${values.map(literal).join(', ')}))`);
}

/** True when the text column contains `needle` as a substring (no LIKE wildcards to escape). */
export function contains(name: Column, needle: string): Predicate {
  return make(`strpos(${column(name)}, ${literal(needle)}) > 0`);
}

export function isNull(name: Column): Predicate {
  return make(`${column(name)} IS NULL`);
}

export function and(...parts: readonly (Predicate | undefined)[]): Predicate {
  const present = parts.filter((part): part is Predicate => part !== undefined);
  if (present.length === 0) return make('true');
  if (present.length === 1) return present[0] as Predicate;
  return make(present.map((part) => `(${part})`).join(' AND '));
}

export function or(...parts: readonly Predicate[]): Predicate {
  if (parts.length === 0) return make('false');
  if (parts.length === 1) return parts[0] as Predicate;
  return make(parts.map((part) => `(${part})`).join(' OR '));
}

function not(part: Predicate): Predicate {
  return make(`NOT (${part})`);
}

// ---- the query filter language (core/query/filter.ts) ---------------------------------------------------

/** The memories column of each built-in field of the filter language. */
export const FIELD_COLUMNS: Readonly<Record<TextField | DateField | 'tags', Column>> = {
  id: 'id',
  title: 'title',
  content: 'content',
  description: 'description',
  author: 'author',
  spaceId: 'space_id',
  tags: 'tags',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Columns that can be NULL: a missing value satisfies $ne/$nin, which SQL's `NULL <> x` does not. */
const NULLABLE = new Set<Column>(['updated_at']);

const ORDER_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function condition(node: Condition): Predicate {
  switch (node.type) {
    case 'text': {
      const name = column(FIELD_COLUMNS[node.field]);
      if (node.op === 'in' || node.op === 'nin') {
        const negate = node.op === 'nin';
        if (node.values.length === 0) return make(negate ? 'true' : 'false');
        if (node.values.length === 1) return make(`${name} ${negate ? '<>' : '='} ${literal(node.values[0] ?? '')}`);
        return make(`${name} ${negate ? 'NOT IN' : 'IN'} (${node.values.map(literal).join(', ')})`);
      }
      return make(`${name} ${ORDER_SQL[node.op]} ${literal(node.values[0] ?? '')}`);
    }
    case 'tags': {
      if (node.values.length === 0) return make(node.op === 'nin' ? 'true' : 'false');
      const any = arrayHasAny('tags', node.values);
      return node.op === 'nin' ? not(any) : any;
    }
    case 'date': {
      const col = FIELD_COLUMNS[node.field];
      if (node.op === 'in' || node.op === 'nin') {
        const within = or(
          ...node.values.map((range) =>
            range.start === range.end ? eq(col, range.start) : and(gte(col, range.start), lte(col, range.end)),
          ),
        );
        if (node.op === 'in') return within;
        if (node.values.length === 0) return make('true');
        return NULLABLE.has(col) ? or(make(`${column(col)} IS NULL`), not(within)) : not(within);
      }
      const range = node.values[0] ?? { start: Number.NaN, end: Number.NaN };
      const bound = node.op === 'gt' || node.op === 'lte' ? range.end : range.start;
      return make(`${column(col)} ${ORDER_SQL[node.op]} ${literal(bound)}`);
    }
    case 'metadata':
      // Metadata is a JSON string column: its paths are evaluated outside LanceDB (core/query/evaluate.ts).
      throw new Error('metadata conditions cannot be translated to LanceDB');
  }
}

/**
 * A filter tree of built-in fields as a where-clause: every value through literal(), every column from
 * the allow-list. SQL's NULL never satisfies a condition, and the language has no NOT, so the only
 * three-valued case is $ne/$nin on a nullable column, spelled out with IS NULL.
 */
export function filterToPredicate(node: FilterNode): Predicate {
  switch (node.type) {
    case 'and':
      return and(...node.children.map(filterToPredicate));
    case 'or':
      return or(...node.children.map(filterToPredicate));
    default:
      return condition(node);
  }
}

/** More values than this and the text prefilter costs more than it saves. */
const MAX_NEEDLES = 50;

/**
 * A necessary condition, on the metadata column (the JSON text `JSON.stringify(metadata)` that rows.ts
 * writes), for a filter's top-level metadata string equalities: a memory whose `metadata.a.b` is (or, for
 * a list, contains) the string s has `JSON.stringify(s)` somewhere in that text, since JSON.stringify
 * escapes a string the same way wherever it appears. It only narrows the rows read; the filter itself is
 * still evaluated on them (core/query/evaluate.ts). Undefined when there is nothing to narrow by.
 */
export function metadataTextPrefilter(node: FilterNode): Predicate | undefined {
  const conditions = node.type === 'and' ? node.children : [node];
  const parts: Predicate[] = [];
  for (const condition of conditions) {
    if (condition.type !== 'metadata' || condition.op !== 'in') continue;
    const values = condition.values;
    if (values.length === 0 || values.length > MAX_NEEDLES || !values.every((value) => typeof value === 'string')) continue;
    parts.push(or(...values.map((value) => make(`strpos(${column('metadata')}, ${literal(JSON.stringify(value))}) > 0`))));
  }
  return parts.length > 0 ? and(...parts) : undefined;
}
