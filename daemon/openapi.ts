import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from '../src/api/contract.js';
import { NOT_COUNTED } from './plugins/accounting.js';

/**
 * The operationId of every documented route, keyed by method and Fastify path. Client generators name their
 * methods after it, so an id never changes once published; a route missing here fails at start-up (and the
 * contract test), so a new route cannot ship undocumented.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health': 'getHealth',
  'GET /v1/status': 'getStatus',
  'POST /v1/reindex': 'startReindex',
  'GET /v1/jobs/:jobId': 'getJob',
  'GET /v1/jobs': 'listJobs',
  'POST /v1/save': 'saveMemory',
  'GET /v1/save/status/:pendingId': 'getSaveStatus',
  'GET /v1/memory/:id': 'getMemory',
  'PATCH /v1/memory/:id': 'updateMemory',
  'DELETE /v1/memory/:id': 'deleteMemory',
  'POST /v1/memories/delete': 'deleteMemories',
  'GET /v1/memories': 'listMemories',
  'POST /v1/search': 'searchMemories',
  'POST /v1/query': 'queryMemories',
  'GET /keys': 'listKeys',
  'POST /keys': 'createKey',
  'POST /keys/:id/regenerate': 'regenerateKey',
  'DELETE /keys/:id': 'deleteKey',
  'GET /v1/entities': 'listEntities',
  'GET /v1/facts': 'listFacts',
  'GET /v1/graph': 'getGraph',
  'GET /v1/extract/:id': 'getExtractionStatus',
  'POST /v1/memory/:id/enrich': 'enrichMemory',
  'POST /v1/enrich': 'enrichTurboMemories',
  'POST /v1/extract/retry': 'retryExtractions',
  'POST /v1/extract/rerun': 'rerunExtractions',
  'POST /v1/ask': 'askMemories',
  'POST /v1/remind': 'remind',
  'POST /v1/turbo/save': 'turboSaveMemory',
  'POST /v1/turbo/ask': 'turboAskMemories',
  'GET /v1/usage': 'getUsage',
  'GET /v1/profile': 'getProfile',
  'PATCH /v1/profile': 'updateProfile',
  'POST /v1/ingest': 'ingestItems',
  'GET /v1/ingest/status/:jobId': 'getIngestStatus',
  'GET /v1/webhooks/secret': 'getWebhookSecret',
  'GET /admin/users': 'listUsers',
  'POST /admin/users': 'createUser',
  'PATCH /admin/users/:id': 'updateUser',
  'DELETE /admin/users/:id': 'deleteUser',
  'POST /mcp': 'callMcp',
  'POST /v1/watches': 'createWatch',
  'GET /v1/watches': 'listWatches',
  'DELETE /v1/watches/:id': 'deleteWatch',
  'GET /v1/export': 'exportData',
  'POST /v1/import': 'importData',
  'POST /v1/admin/backup': 'createBackup',
};

/** Routes that need no key (auth plugin) and so cannot answer 401 or 429. */
export const PUBLIC_ROUTES = new Set(['GET /health', 'GET /openapi.json']);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface RouteSchema {
  hide?: boolean;
  operationId?: string;
  body?: unknown;
  params?: unknown;
  querystring?: unknown;
  response?: Record<string | number, unknown>;
}

/**
 * The error answers every route of a kind can give, added to what the route documents itself (its 403, 404,
 * 422, 503): 400 where there is input to validate, 401 behind a key, 429 where requests are counted, 413
 * where a body is read, 500 anywhere. With these the document lists every status a client can meet.
 */
function sharedErrors(key: string, method: string, path: string, schema: RouteSchema): Partial<Record<number, typeof ErrorBody>> {
  const authenticated = !PUBLIC_ROUTES.has(key);
  const input = schema.body !== undefined || schema.params !== undefined || schema.querystring !== undefined;
  return {
    ...(input ? { 400: ErrorBody } : {}),
    ...(authenticated ? { 401: ErrorBody } : {}),
    ...(authenticated && !NOT_COUNTED.has(path) ? { 429: ErrorBody } : {}),
    ...(BODY_METHODS.has(method) ? { 413: ErrorBody } : {}),
    500: ErrorBody,
  };
}

/** Gives every documented route its operationId and shared error responses, before @fastify/swagger reads it. */
export function registerOpenApiConventions(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ?? {}) as RouteSchema;
    if (schema.hide) return;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const key = `${method} ${route.url}`;
      const operationId = OPERATION_IDS[key];
      if (!operationId) throw new Error(`Route ${key} has no operationId: add it to daemon/openapi.ts.`);
      route.schema = { ...schema, operationId, response: { ...sharedErrors(key, method, route.url, schema), ...(schema.response ?? {}) } };
    }
  });
}
