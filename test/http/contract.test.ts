import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, PUBLIC_ROUTES } from '../../daemon/openapi.js';
import { NOT_COUNTED } from '../../daemon/plugins/accounting.js';
import { ERROR_TABLE, isErrorCode } from '../../src/errors.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The contract, generated from the served OpenAPI document: every operation it lists gets a valid request
 * with the spec's headers (answer: a documented 2xx, matching its documented schema) and a request for each
 * documented 4xx (answer: that status, the envelope, a spec code of that status, the documented schema).
 * 5xx are documented as possible but not provoked here. Every route Fastify serves must be in the document,
 * and every operation in the document must have a valid request below: a new route fails this test until
 * it is documented and given one.
 */

interface Operation {
  readonly operationId: string;
  readonly parameters?: { name: string; in: 'path' | 'query'; schema: JsonSchema }[];
  readonly requestBody?: unknown;
  readonly responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
interface JsonSchema {
  readonly type?: string | string[];
  readonly enum?: unknown[];
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly anyOf?: JsonSchema[];
}
interface Request {
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

let t: TestApp;
let document: { paths: Record<string, Record<string, Operation>> };
let keys: { readOnly: string; member: string; limited: string };
let fixtures: { memoryId: string; pendingId: string; jobId: string; watchDir: string; scratch: string };
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });

const UNKNOWN = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const headersFor = (key: string | null): Record<string, string> => ({
  'content-type': 'application/json',
  ...(key ? { authorization: `Bearer ${key}` } : {}),
});

async function send(method: string, path: string, request: Request, key: string | null = t.key): Promise<LightMyRequestResponse> {
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(request.params?.[name] ?? ''));
  return t.app.inject({
    method: method.toUpperCase() as 'GET',
    url,
    query: request.query ?? {},
    headers: { ...headersFor(key), ...(request.headers ?? {}) },
    ...(request.body !== undefined ? { payload: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) } : {}),
  });
}

async function json(method: string, url: string, body?: unknown, key: string = t.key): Promise<Record<string, unknown>> {
  const response = await t.app.inject({ method: method as 'GET', url, headers: headersFor(key), ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json();
}

const newMemory = async () => (await json('POST', '/v1/turbo/save', { content: 'A memory made for the contract test.' })).documentId as string;
const newKey = async () => ((await json('POST', '/keys', { name: 'contract' })).data as { id: string }).id;
let users = 0;
const newUser = async () =>
  ((await json('POST', '/admin/users', { email: `contract${++users}@example.org`, name: 'Contract' })).data as { id: string }).id;
const newWatch = async () => {
  const path = mkdtempSync(join(fixtures.scratch, 'watch-'));
  return ((await json('POST', '/v1/watches', { path })).watch as { id: string }).id;
};

/** A valid request per operation, with the spec's headers; destructive ones make what they destroy. */
const VALID: Record<string, () => Promise<Request>> = {
  getHealth: async () => ({}),
  getStatus: async () => ({}),
  startReindex: async () => ({}),
  getJob: async () => ({ params: { jobId: fixtures.jobId } }),
  listJobs: async () => ({ query: { limit: '5' } }),
  saveMemory: async () => ({ body: { content: 'Met Sarah Chen from Acme about the Q3 roadmap.', tags: ['work'] } }),
  getSaveStatus: async () => ({ params: { pendingId: fixtures.pendingId } }),
  getMemory: async () => ({ params: { id: fixtures.memoryId } }),
  updateMemory: async () => ({ params: { id: fixtures.memoryId }, body: { tags: ['updated'] } }),
  deleteMemory: async () => ({ params: { id: await newMemory() } }),
  deleteMemories: async () => ({ body: { ids: [await newMemory()] } }),
  listMemories: async () => ({ query: { limit: '5', tags: 'work' } }),
  searchMemories: async () => ({ body: { query: 'roadmap', threshold: 0 } }),
  queryMemories: async () => ({ body: { filters: { tags: { $in: ['work'] } }, limit: 5 } }),
  listKeys: async () => ({}),
  createKey: async () => ({ body: { name: 'contract key' } }),
  regenerateKey: async () => ({ params: { id: await newKey() } }),
  deleteKey: async () => ({ params: { id: await newKey() } }),
  listEntities: async () => ({ query: { limit: '5' } }),
  listFacts: async () => ({ query: { limit: '5' } }),
  getGraph: async () => ({ query: { depth: '1' } }),
  getExtractionStatus: async () => ({ params: { id: (await json('POST', '/v1/save', { content: 'Priya joined Globex in Berlin.' })).documentId as string } }),
  enrichMemory: async () => ({ params: { id: await newMemory() } }),
  enrichTurboMemories: async () => ({ body: { allTurbo: true } }),
  retryExtractions: async () => ({}),
  rerunExtractions: async () => ({ body: { all: false } }),
  askMemories: async () => ({ body: { query: 'Who did I meet about the roadmap?' } }),
  remind: async () => ({ body: { context: 'Preparing the quarterly roadmap review' } }),
  turboSaveMemory: async () => ({ body: { content: 'A turbo note.' } }),
  turboAskMemories: async () => ({ body: { query: 'What is on the roadmap?' } }),
  getUsage: async () => ({ query: { period: 'day' } }),
  getProfile: async () => ({}),
  updateProfile: async () => ({ body: { company: 'Acme' } }),
  ingestItems: async () => ({ body: { items: [{ content: 'An ingested note.' }] } }),
  getIngestStatus: async () => ({ params: { jobId: fixtures.jobId } }),
  getWebhookSecret: async () => ({}),
  listUsers: async () => ({}),
  createUser: async () => ({ body: { email: `valid${++users}@example.org`, name: 'Valid' } }),
  updateUser: async () => ({ params: { id: await newUser() }, body: { tier: 'pro' } }),
  deleteUser: async () => ({ params: { id: await newUser() } }),
  callMcp: async () => ({
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } },
  }),
  createWatch: async () => ({ body: { path: mkdtempSync(join(fixtures.scratch, 'watch-')) } }),
  listWatches: async () => ({}),
  deleteWatch: async () => ({ params: { id: await newWatch() } }),
  exportData: async () => ({ query: { withVectors: 'false' } }),
  importData: async () => ({ body: { records: [] } }),
  createBackup: async () => ({ body: { path: join(fixtures.scratch, `backup-${Date.now()}`) } }),
};

/** Unknown but well-formed ids, by the path they go in (404, not 400). */
function unknownId(path: string): string {
  if (path.startsWith('/v1/memory/') || path.startsWith('/v1/extract/')) return `mem_${UNKNOWN}`;
  if (path.startsWith('/v1/save/status')) return `pnd_${UNKNOWN}`;
  if (path.startsWith('/v1/jobs') || path.startsWith('/v1/ingest')) return `job_${UNKNOWN}`;
  if (path.startsWith('/keys')) return `key_${UNKNOWN}`;
  if (path.startsWith('/admin/users')) return `usr_${UNKNOWN}`;
  if (path.startsWith('/v1/watches')) return `wch_${UNKNOWN}`;
  throw new Error(`no unknown id for ${path}`);
}

/** A value of the wrong kind for a query parameter's schema. */
function badQueryValue(schema: JsonSchema): string | undefined {
  const types = [schema.type ?? schema.anyOf?.map((option) => option.type)].flat(2).filter(Boolean);
  if (schema.enum || schema.anyOf?.some((option) => option.enum)) return 'not-one-of-them';
  if (types.includes('integer') || types.includes('number')) return '-1.5';
  if (types.includes('boolean')) return 'maybe';
  if (schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
  return undefined;
}

/** Requests that should each provoke one documented 4xx of an operation; several tries where the route's input decides. */
async function provocations(status: number, method: string, path: string, operation: Operation): Promise<{ request: Request; key: string | null }[]> {
  const valid = await VALID[operation.operationId]!();
  const pathNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  switch (status) {
    case 400: {
      const tries: { request: Request; key: string | null }[] = [];
      if (operation.requestBody) tries.push({ request: { ...valid, body: '[]' }, key: t.key });
      for (const name of pathNames) tries.push({ request: { ...valid, params: { ...valid.params, [name]: 'x'.repeat(300) } }, key: t.key });
      for (const parameter of (operation.parameters ?? []).filter((p) => p.in === 'query')) {
        const bad = badQueryValue(parameter.schema);
        if (bad !== undefined) tries.push({ request: { ...valid, query: { ...valid.query, [parameter.name]: bad } }, key: t.key });
      }
      return tries;
    }
    case 401:
      return [{ request: valid, key: null }, { request: valid, key: 'svc_live_not_a_key' }];
    case 403:
      return [{ request: valid, key: keys.readOnly }, { request: valid, key: keys.member }];
    case 404:
      return pathNames.length > 0
        ? [{ request: { ...valid, params: Object.fromEntries(pathNames.map((name) => [name, unknownId(path)])) }, key: t.key }]
        : [];
    case 413: {
      const big = { request: { ...valid, body: JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) }) }, key: t.key };
      if (operation.operationId === 'ingestItems') {
        // The body limit of ingest is larger than any plan's items: the plan's item limit is the 413 here.
        return [{ request: { body: { items: Array.from({ length: 10_001 }, () => ({ content: 'x' })) } }, key: t.key }];
      }
      if (operation.operationId === 'importData') {
        // Import's body limit is 64 MiB.
        return [{ request: { body: JSON.stringify({ records: ['x'.repeat(65 * 1024 * 1024)] }) }, key: t.key }];
      }
      return [big];
    }
    case 422:
      return [{ request: { body: { url: 'http://127.0.0.1:9/nothing-listens-here' } }, key: t.key }];
    case 429:
      return [{ request: valid, key: keys.limited }];
    default:
      return [];
  }
}

function schemaOf(operation: Operation, status: string, mediaType = 'application/json'): JsonSchema | undefined {
  return operation.responses[status]?.content?.[mediaType]?.schema;
}

function expectMatches(schema: JsonSchema | undefined, body: unknown, where: string): void {
  expect(schema, `${where}: no documented schema`).toBeDefined();
  const validate = ajv.compile(schema as object);
  expect(validate(body), `${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`).toBe(true);
}

/** Every method and path Fastify serves (HEAD left out), from its route tree. */
function servedRoutes(): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = at / 4;
    const match = /^(\S*) \(([^)]+)\)$/.exec(line.slice(at + 4)) ?? /^(\S*)$/.exec(line.slice(at + 4));
    if (!match) continue;
    const path = (stack[depth - 1] ?? '') + match[1];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (match[2] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) routes.push(`${method} ${path}`);
  }
  return routes;
}

beforeAll(async () => {
  t = await createTestApp();
  document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const scratch = mkdtempSync(join(tmpdir(), 'mem-contract-'));
  const watchDir = join(scratch, 'watched');
  mkdirSync(watchDir);
  const readOnly = (await t.deps.auth.createKey(t.deps.ownerId, { name: 'read-only', type: 'live', readOnly: true })).value;
  const member = ((await json('POST', '/admin/users', { email: 'member@example.org', name: 'Member' })).key as { key: string }).key;
  const limited = (await t.deps.auth.createKey(t.deps.ownerId, { name: 'limited', type: 'live', rateLimitPerHour: 1 })).value;
  await json('GET', '/v1/status', undefined, limited);
  keys = { readOnly, member, limited };
  const memoryId = await newMemory();
  const pendingId = (await json('POST', '/v1/save', { content: 'Saved in the background.', async: true })).pendingId as string;
  const jobId = (await json('POST', '/v1/ingest', { items: [{ content: 'Job fixture.' }] })).jobId as string;
  fixtures = { memoryId, pendingId, jobId, watchDir, scratch };
});

afterAll(async () => {
  await t.deps.ingest.onIdle();
  await t.deps.watches.onIdle();
  await t.close();
  await closeTestEmbedder();
  rmSync(fixtures.scratch, { recursive: true, force: true });
});

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

describe('the contract, from the served OpenAPI document', () => {
  it('documents every route Fastify serves (hidden ones named here), and nothing it does not serve', () => {
    const documented = operations().map(({ method, path }) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    const hidden = ['GET /openapi.json', 'GET /mcp', 'DELETE /mcp'];
    expect([...servedRoutes()].filter((route) => !hidden.includes(route)).sort()).toEqual([...documented].sort());
    expect(Object.keys(OPERATION_IDS).sort()).toEqual([...documented].sort());
    expect(documented.length).toBeGreaterThanOrEqual(46);
  });

  it('has a valid request for every operation, answered with a documented 2xx and its schema', async () => {
    for (const { path, method, operation } of operations()) {
      const build = VALID[operation.operationId];
      expect(build, `no valid request for ${operation.operationId}: add one to VALID`).toBeDefined();
      const response = await send(method, path, await build!());
      const where = `${operation.operationId} (${method.toUpperCase()} ${path}) -> ${response.statusCode} ${response.body.slice(0, 300)}`;
      const documented = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect(documented, where).toContain(String(response.statusCode));
      const contentType = String(response.headers['content-type'] ?? '').split(';')[0]!;
      if (contentType === 'application/json') expectMatches(schemaOf(operation, String(response.statusCode)), response.json(), where);
      else expect(operation.responses[String(response.statusCode)]?.content?.[contentType], where).toBeDefined();
    }
  }, 120_000);

  it('answers each documented 4xx of every operation with that status and the error envelope', async () => {
    const unprovoked: string[] = [];
    for (const { path, method, operation } of operations()) {
      for (const status of Object.keys(operation.responses).filter((code) => code.startsWith('4')).map(Number)) {
        const tries = await provocations(status, method, path, operation);
        let provoked = false;
        for (const { request, key } of tries) {
          const response = await send(method, path, request, key);
          if (response.statusCode !== status) continue;
          provoked = true;
          const where = `${operation.operationId} ${status}: ${response.body.slice(0, 300)}`;
          const body = response.json() as { success?: unknown; error?: unknown; message?: unknown };
          expect(body.success, where).toBe(false);
          expect(isErrorCode(body.error), where).toBe(true);
          expect(ERROR_TABLE[body.error as keyof typeof ERROR_TABLE].status, where).toBe(status);
          expect(typeof body.message, where).toBe('string');
          expectMatches(schemaOf(operation, String(status)), body, where);
          break;
        }
        if (!provoked) unprovoked.push(`${operation.operationId} ${status}`);
      }
    }
    // A documented status no request provokes is a false promise in the document.
    expect(unprovoked).toEqual([]);
  }, 300_000);

  it('leaves public routes without 401, keyed routes with 401, and 429 wherever requests are counted', () => {
    for (const { path, method, operation } of operations()) {
      const fastifyPath = path.replace(/\{(\w+)\}/g, ':$1');
      const key = `${method.toUpperCase()} ${fastifyPath}`;
      const statuses = Object.keys(operation.responses);
      if (PUBLIC_ROUTES.has(key)) expect(statuses, key).not.toContain('401');
      else expect(statuses, key).toContain('401');
      expect(statuses.includes('429'), key).toBe(!PUBLIC_ROUTES.has(key) && !NOT_COUNTED.has(fastifyPath));
    }
  });
});
