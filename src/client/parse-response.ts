import type { z } from 'zod';
import type * as contract from '../api/contract.js';
import { loadResponseCheck } from './response-checks.js';

type Contract = typeof contract;

/** The name of a schema the contract exports, e.g. 'SearchResponse'. */
export type SchemaName = { [K in keyof Contract]: Contract[K] extends z.ZodType ? K : never }[keyof Contract];
/** What parsing with that schema gives. */
export type Parsed<N extends SchemaName> = z.output<Contract[N]>;

export type ParseResult<N extends SchemaName> = { readonly success: true; readonly data: Parsed<N> } | { readonly success: false; readonly error: z.ZodError };

/**
 * `contract[name].safeParse(json)`, without loading zod and the contract when the build-time check of that
 * schema (response-checks.ts) passes the value as it is: a short CLI command spends more time building
 * the contract's schemas than waiting for the daemon. Everything else (a value the check rejects, a schema
 * without a check, the sources run unbuilt) is parsed by zod, with its result and error message.
 */
export async function parseResponse<N extends SchemaName>(name: N, json: unknown): Promise<ParseResult<N>> {
  const check = await loadResponseCheck(name);
  if (check?.(json)) return { success: true, data: json as Parsed<N> };
  const schemas = await import('../api/contract.js');
  const schema: z.ZodType = schemas[name];
  return schema.safeParse(json) as ParseResult<N>;
}
