import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE, isErrorCode } from '../../src/errors.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Property-based tests of bad input on every route of the served OpenAPI document (fast-check): arbitrary JSON
 * in place of the body and of each of its fields, wrong types, huge strings, null bytes, lone surrogates,
 * deep nesting, hostile numbers, SQL- and path-looking strings in ids, tags, spaceId, filters and metadata
 * keys. Properties: no 5xx; every error is the spec's envelope with a code of its status; the daemon answers
 * the next request; the owner's data is unchanged (the requests go with another account's key, so nothing
 * they may legitimately create or delete is the owner's). Seeded and bounded here; `npm run bench -- --only
 * fuzz` runs it longer (MEM_FUZZ_RUNS, MEM_FUZZ_SEED).
 */

const RUNS = Number(process.env.MEM_FUZZ_RUNS ?? 10);
const SEED = Number(process.env.MEM_FUZZ_SEED ?? 22);
const ANSWER_WITHIN_MS = 30_000;

interface Operation {
  readonly operationId: string;
  readonly parameters?: { name: string; in: 'path' | 'query' }[];
  readonly requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

let t: TestApp;
let fuzzKey: string;
let operations: { method: string; path: string; operation: Operation }[];
let before: string;
let sampleIds: string[];
let requests = 0;

const ONE_MB = 'x'.repeat(1024 * 1024);
const TEN_MB = 'y'.repeat(10 * 1024 * 1024);
/** 10,000 levels of arrays, as text (JSON.stringify of such a value would overflow the stack). */
const DEEP_JSON = '['.repeat(10_000) + ']'.repeat(10_000);
const DEEP = Symbol('deep');

const hostileStrings = fc.constantFrom(
  "' OR 1=1 --",
  "x'); DROP TABLE memories; --",
  'tags = \'a\' OR true',
  "mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' OR '1'='1",
  '../../../../etc/passwd',
  '..\\..\\windows\\system32',
  '/etc',
  '%00',
  'a\u0000b',
  '\u0000',
  '\uD800',
  'x\uDFFFy',
  '%ED%A0%80',
  '$where',
  '__proto__',
  'constructor',
  'metadata.__proto__.polluted',
  '*',
  '',
  ' ',
  '\n',
  'ñ日本\u{1F600}',
);
const hostileNumbers = fc.constantFrom(-1, -0.5, 0.5, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 31), 0);
const hugeStrings = fc.constantFrom(ONE_MB, TEN_MB);
const strings = fc.oneof(hostileStrings, fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 40 }));

/** Any value a field may be replaced with (DEEP is spliced in as text when serialized). */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: strings },
  { weight: 2, arbitrary: hostileNumbers },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: hugeStrings },
  { weight: 1, arbitrary: fc.constant(DEEP) },
  { weight: 1, arbitrary: fc.dictionary(strings, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(strings, { maxLength: 5 }) },
);

function serialize(value: unknown): string {
  let deep = false;
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === DEEP) {
      deep = true;
      return '__DEEP__';
    }
    return inner;
  });
  return deep ? text.replaceAll('"__DEEP__"', DEEP_JSON) : (text ?? 'null');
}

/** A body: arbitrary JSON in place of it, or the route's own fields (plus a metadata/filters key) with hostile values. */
function bodies(operation: Operation): fc.Arbitrary<string | undefined> {
  const fields = Object.keys(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {});
  const known = fc.record(Object.fromEntries(fields.map((field) => [field, hostileValue])), { requiredKeys: [] });
  const withHostileKeys = fc
    .tuple(known, fc.constantFrom('metadata', 'filters', 'settings'), fc.dictionary(strings, hostileValue, { maxKeys: 3 }))
    .map(([body, field, inner]) => ({ ...body, [field]: inner }));
  return fc.oneof(
    fc.constant(undefined),
    hostileValue.map(serialize),
    known.map(serialize),
    withHostileKeys.map(serialize),
    fc.constantFrom('{', '{"a":', '\u0000', '[1,2', 'null', '"\uD800"', `{"a":"\\uD800"}`),
  );
}

/**
 * Percent-encodes like encodeURIComponent, but a lone surrogate becomes its (invalid) three UTF-8-style bytes,
 * as a hostile client would send it (%ED%A0%80), instead of throwing.
 */
function encodeSegment(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

function expectAnswer(response: LightMyRequestResponse, where: string, protocol: 'envelope' | 'json-rpc' = 'envelope'): void {
  expect(response.statusCode, `${where}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
  if (response.statusCode >= 400 && protocol === 'json-rpc' && !response.body.includes('"success":false')) {
    // MCP speaks JSON-RPC: its own errors are JSON-RPC error objects; HTTP-level failures are still envelopes.
    expect(response.json(), where).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
  } else if (response.statusCode >= 400) {
    const body = response.json() as { success?: unknown; error?: unknown; message?: unknown };
    expect(body.success, where).toBe(false);
    expect(isErrorCode(body.error), `${where}: ${response.body.slice(0, 200)}`).toBe(true);
    expect(ERROR_TABLE[body.error as keyof typeof ERROR_TABLE].status, where).toBe(response.statusCode);
    expect(typeof body.message, where).toBe('string');
  }
}

async function withinTime<T>(promise: Promise<T>, where: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${where}: no answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The owner's data as bytes: the count and every sampled memory in full. */
async function ownerSnapshot(): Promise<string> {
  const list = await t.request({ method: 'GET', url: '/v1/memories?limit=100' });
  const memories = await Promise.all(sampleIds.map((id) => t.request({ method: 'GET', url: `/v1/memory/${id}` })));
  return JSON.stringify({ total: list.json().pagination.total, memories: memories.map((response) => response.body) });
}

beforeAll(async () => {
  t = await createTestApp();
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  sampleIds = [];
  for (const content of ['Met Sarah Chen from Acme in Berlin.', "Don't forget: 100% of the Q3 budget_ is spent.", 'A note with tags.']) {
    const saved = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content, tags: ['seed', "it's"], spaceId: 'work' } });
    sampleIds.push(saved.json().documentId);
  }
  const member = await t.request({ method: 'POST', url: '/admin/users', payload: { email: 'fuzz@example.org', name: 'Fuzz', tier: 'enterprise' } });
  fuzzKey = member.json().key.key;
  before = await ownerSnapshot();
});

afterAll(async () => {
  await t.deps.ingest.onIdle();
  await t.close();
  await closeTestEmbedder();
});

describe('bad input on every route (fast-check)', () => {
  it('never a 5xx, always the envelope, the daemon keeps answering, the owner data is unchanged', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(46);
    for (const { method, path, operation } of operations) {
      const pathNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      const queryNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      const request = fc.record({
        params: fc.tuple(...pathNames.map(() => fc.oneof(strings, hugeStrings.map((text) => text.slice(0, 5000))))),
        query: fc.dictionary(fc.constantFrom(...queryNames, 'limit', 'offset', 'unknown'), fc.oneof(strings, hostileNumbers.map(String)), { maxKeys: 3 }),
        body: bodies(operation),
        contentType: fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ params, query, body, contentType }) => {
          let index = 0;
          const url = path.replace(/\{\w+\}/g, () => encodeSegment(String(params[index++] ?? '')));
          const where = `${operation.operationId} ${method} ${url.slice(0, 120)} ${String(body).slice(0, 120)}`;
          const response = await withinTime(
            t.app.inject({
              method: method as 'GET',
              url,
              query,
              headers: { authorization: `Bearer ${fuzzKey}`, 'content-type': contentType },
              ...(body !== undefined ? { payload: body } : {}),
            }),
            where,
          );
          requests++;
          expectAnswer(response, where, path === '/mcp' ? 'json-rpc' : 'envelope');
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      const health = await withinTime(t.app.inject({ method: 'GET', url: '/health' }), `after ${operation.operationId}`);
      expect(health.statusCode).toBe(200);
    }
    expect(requests).toBe(operations.length * RUNS);
    await t.deps.ingest.onIdle();
    expect(await ownerSnapshot()).toBe(before);
  }, 600_000);

  it('hostile values in the owner\'s own fields (ids, tags, spaceId, filters, metadata keys) leave stored memories unchanged', async () => {
    const reads = fc.record({
      tags: fc.array(fc.oneof(hostileStrings, fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 4 }),
      spaceId: fc.oneof(hostileStrings, fc.string({ unit: 'binary', maxLength: 20 })),
      key: fc.oneof(hostileStrings, fc.string({ maxLength: 20 })),
      value: hostileValue,
      id: fc.oneof(hostileStrings, fc.string({ unit: 'binary', maxLength: 30 })),
    });
    await fc.assert(
      fc.asyncProperty(reads, async ({ tags, spaceId, key, value, id }) => {
        const filter = serialize({ filters: { [`metadata.${key}`]: value, spaceId, tags: { $in: tags } }, limit: 5 });
        const answers = await Promise.all([
          t.app.inject({ method: 'POST', url: '/v1/query', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, payload: filter }),
          t.request({ method: 'GET', url: `/v1/memories?tags=${encodeSegment(tags.join(','))}&spaceId=${encodeSegment(spaceId)}` }),
          t.request({ method: 'POST', url: '/v1/search', payload: { query: `${key} ${spaceId}`.trim() || 'x', tags: tags.filter(Boolean), spaceId } }),
          t.request({ method: 'GET', url: `/v1/memory/${encodeSegment(id)}` }),
          t.request({ method: 'DELETE', url: `/v1/memory/${encodeSegment(id)}`, headers: { 'content-type': 'application/json' } }),
          t.request({ method: 'POST', url: '/v1/memories/delete', payload: { ids: [id, `${id}' OR '1'='1`] } }),
        ]);
        for (const answer of answers) expectAnswer(answer, `owner fields ${JSON.stringify({ tags, spaceId, key, id }).slice(0, 200)}`);
      }),
      { seed: SEED, numRuns: RUNS * 5, endOnFailure: true },
    );
    expect(await ownerSnapshot()).toBe(before);
  }, 300_000);
});
