/**
 * The ONLY builder of LanceDB where-clauses. LanceDB (DataFusion SQL) has no parameter binding, so every
 * value goes through `literal()`: strings are single-quoted with `'` doubled (backslashes are literal in
 * standard SQL strings), numbers must be finite, and column names come from a fixed allow-list.
 */
export type Column =
  | 'id'
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
  | 'is_owner';

const COLUMNS = new Set<string>([
  'id',
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

export function and(...parts: readonly (Predicate | undefined)[]): Predicate {
  const present = parts.filter((part): part is Predicate => part !== undefined);
  if (present.length === 0) return make('true');
  if (present.length === 1) return present[0] as Predicate;
  return make(present.map((part) => `(${part})`).join(' AND '));
}
