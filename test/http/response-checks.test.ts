import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as contract from '../../src/api/contract.js';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { responseCheckSources, responseSchemaNames, uncheckable } from '../../scripts/response-checks.mjs';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The build-time checks of the daemon's answers (scripts/response-checks.mjs) that let a CLI command skip
 * zod: a check must pass exactly the values zod returns unchanged. Held here against real answers of the
 * app and against the same answers changed in the ways zod would strip, fill in or reject.
 */
type Check = (value: unknown) => boolean;
const schemas = contract as unknown as Record<string, z.ZodType>;
const generate = responseCheckSources as (module: unknown) => Map<string, string>;

let t: TestApp;
let dir: string;
const checks = new Map<string, Check>();
/** Real answers, by the schema the client parses them with. */
const answers: [string, unknown][] = [];

async function answer(schema: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>): Promise<void> {
  const response = await t.request({ method, url, ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  answers.push([schema, response.json()]);
}

beforeAll(async () => {
  // Under node_modules so that a generated module could still import Ajv's run-time helpers.
  dir = mkdtempSync(join(import.meta.dirname, '..', '..', 'node_modules', '.response-checks-'));
  for (const [name, source] of generate(contract)) {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, source);
    checks.set(name, ((await import(pathToFileURL(file).href)) as { check: Check }).check);
  }
  t = await createTestApp();
  const saved = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'Met Sarah Chen from Globex in Berlin about the Q3 roadmap.', tags: ['work'], author: 'Ana', metadata: { n: 1 } } });
  const id = saved.json<{ documentId: string }>().documentId;
  answers.push(['SaveResponse', saved.json()]);
  await answer('TurboSaveResponse', 'POST', '/v1/turbo/save', { content: 'Priya asked for the Globex invoice by Friday.' });
  await answer('SaveResponse', 'POST', '/v1/save', { content: 'An async note.', async: true });
  await answer('SearchResponse', 'POST', '/v1/search', { query: 'Globex roadmap', threshold: 0 });
  await answer('SearchResponse', 'POST', '/v1/search', { query: 'Globex roadmap', threshold: 0, explain: true });
  await answer('ListResponse', 'GET', '/v1/memories');
  await answer('MemoryResponse', 'GET', `/v1/memory/${id}`);
  await answer('HealthResponse', 'GET', '/health');
  await answer('StatusResponse', 'GET', '/v1/status');
  await answer('AskResponse', 'POST', '/v1/ask', { query: 'Who did I meet in Berlin?' });
  await answer('RemindResponse', 'POST', '/v1/remind', { context: 'Preparing the Globex review', timeframe: 'all' });
  await answer('KeyListResponse', 'GET', '/keys');
  await answer('EntitiesResponse', 'GET', '/v1/entities');
  await answer('JobListResponse', 'GET', '/v1/jobs');
  await answer('ProfileResponse', 'GET', '/v1/profile');
  await answer('QueryResponse', 'POST', '/v1/query', { filter: { tags: { $in: ['work'] } } });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await closeTestEmbedder();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('build-time response checks', () => {
  it('exist for every response schema of the contract, the ones the CLI waits on most among them', () => {
    expect([...checks.keys()]).toEqual((responseSchemaNames as (module: unknown) => string[])(contract));
    for (const name of ['SearchResponse', 'TurboSaveResponse', 'SaveResponse', 'ListResponse', 'AskResponse', 'HealthResponse']) expect(checks.has(name), name).toBe(true);
  });

  it('pass real answers of the app, which zod returns unchanged', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const [name, json] of answers) {
      expect(checks.get(name)?.(json), `${name}: ${JSON.stringify(json).slice(0, 300)}`).toBe(true);
      expect(schemas[name]!.parse(json), name).toEqual(json);
    }
  });

  it('fail an answer with a key zod would strip, a missing or mistyped field, or no object at all', () => {
    for (const [name, json] of answers) {
      const check = checks.get(name)!;
      const body = json as Record<string, unknown>;
      const extra = { ...body, addedLater: 1 };
      expect(check(extra), `${name} + unknown key`).toBe(false);
      expect(schemas[name]!.parse(extra)).toEqual(json); // what the client then returns: zod's result
      // Without each of its fields in turn: passed only when zod returns that value unchanged too.
      for (const key of Object.keys(body)) {
        const { [key]: _dropped, ...missing } = body;
        const parsed = schemas[name]!.safeParse(missing);
        const unchanged = parsed.success && JSON.stringify(parsed.data) === JSON.stringify(missing);
        expect(check(missing), `${name} without ${key}`).toBe(unchanged);
      }
      if ('success' in body) expect(check({ ...body, success: 'yes' }), `${name} success: 'yes'`).toBe(false);
      for (const value of [null, [], 'text', 1]) expect(check(value)).toBe(false);
    }
    const search = answers.find(([name, json]) => name === 'SearchResponse' && (json as { results: unknown[] }).results.length > 0)![1] as {
      results: Record<string, unknown>[];
    };
    const [first, ...rest] = search.results;
    const check = checks.get('SearchResponse')!;
    expect(check({ ...search, results: [{ ...first, score: '0.9' }, ...rest] })).toBe(false);
    expect(check({ ...search, results: [{ ...first, nested: true }, ...rest] })).toBe(false);
    expect(check({ ...search, results: [{ ...first, tags: [1] }, ...rest] })).toBe(false);
  });

  it('leave out schemas whose parse changes or rejects what JSON Schema cannot say', () => {
    const reason = uncheckable as (schema: z.ZodType) => string | null;
    expect(reason(z.object({ a: z.string().transform(Number) }))).toBe('pipe');
    expect(reason(z.object({ a: z.string().refine((value) => value !== 'x') }))).toBe('a custom check');
    expect(reason(z.object({ a: z.array(z.string().trim()) }))).toBe('a overwrite check');
    expect(reason(z.object({ a: z.string().max(3) }))).toBe('a string length check');
    expect(reason(z.object({ a: z.string().url() }))).toBe('the url format');
    expect(reason(z.object({ a: z.string().regex(/a/i) }))).toBe('the regex format');
    expect(reason(z.object({ a: z.number().catch(0) }))).toBe('catch');
    expect(reason(z.object({ a: z.iso.datetime(), b: z.number().int().min(0).default(1), c: z.union([z.literal('x'), z.enum(['y'])]) }))).toBeNull();
  });

  it('require a field with a default, which zod would fill in, and check ISO date-times by their pattern', async () => {
    const schema = z.object({ at: z.iso.datetime(), count: z.number().int().default(1) });
    const source = generate({ ExampleResponse: schema }).get('ExampleResponse')!;
    const file = join(dir, 'example.mjs');
    writeFileSync(file, source);
    const { check } = (await import(pathToFileURL(file).href)) as { check: Check };
    expect(check({ at: '2026-11-24T10:00:00Z', count: 2 })).toBe(true);
    expect(check({ at: '2026-11-24T10:00:00Z' })).toBe(false);
    expect(schema.parse({ at: '2026-11-24T10:00:00Z' })).toEqual({ at: '2026-11-24T10:00:00Z', count: 1 });
    expect(check({ at: 'yesterday', count: 2 })).toBe(false);
    expect(check({ at: '2026-11-24T10:00:00Z', count: 1.5 })).toBe(false);
  });
});
