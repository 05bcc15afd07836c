import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Admission, Admitted, Lane } from '../../src/core/scheduling/admission.js';
import type { BackgroundPace } from '../../src/core/scheduling/background-pace.js';
import type { RequestTimings } from '../../src/core/scheduling/request-timings.js';

/**
 * Requests that take the models' time (a query embedding and a scan; an embedding, an extraction and a
 * commit; whole batches) each have a lane; every other authenticated route is a cheap read. Not admitted at
 * all: /health and /openapi.json, GET /v1/status (it must answer when the daemon is busiest: that is when
 * one looks), and /mcp, whose tool calls are requests of their own that take their lanes' slots.
 */
const LANE_OF: Readonly<Record<string, Lane>> = {
  'POST /v1/search': 'search',
  'POST /v1/ask': 'search',
  'POST /v1/remind': 'search',
  'POST /v1/turbo/ask': 'search',
  'POST /v1/save': 'write',
  'POST /v1/turbo/save': 'write',
  'PATCH /v1/memory/:id': 'write',
  'DELETE /v1/memory/:id': 'write',
  'POST /v1/memories/delete': 'write',
  'POST /v1/memory/:id/enrich': 'write',
  'POST /v1/enrich': 'write',
  'POST /v1/extract/retry': 'write',
  'POST /v1/extract/rerun': 'write',
  'POST /v1/reindex': 'write',
  'POST /v1/ingest': 'bulk',
  'POST /v1/import': 'bulk',
  'GET /v1/export': 'bulk',
  'POST /v1/admin/backup': 'bulk',
};
const NOT_ADMITTED = new Set(['GET /health', 'GET /openapi.json', 'GET /v1/status', 'POST /mcp']);
/**
 * Reads that watch background work rather than wait on the daemon: `mem import` and `mem watch add` poll a
 * job's progress every few hundred ms, which would otherwise hold the job at the yielding pace half the time.
 */
const NOT_INTERACTIVE = new Set(['GET /v1/ingest/status/:jobId', 'GET /v1/jobs', 'GET /v1/jobs/:jobId', 'GET /v1/watches']);

declare module 'fastify' {
  interface FastifyRequest {
    admitted?: Admitted;
    /** Ends the request's claim on the background pace (idempotent). */
    interactiveEnded?: () => void;
  }
}

function routeKey(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? '(no route)'}`;
}

/**
 * Admission (after auth and the per-key rate limits, once the body is validated): each request waits for a
 * slot of its lane, or gets 429 RATE_LIMITED with Retry-After when the lane's queue is full. Every answered
 * request is timed per route: time queued for the slot, time working after it.
 */
export function registerAdmission(app: FastifyInstance, admission: Admission, timings: RequestTimings, pace?: BackgroundPace): void {
  app.addHook('preHandler', async (request, reply) => {
    const key = routeKey(request);
    if (!request.auth || NOT_ADMITTED.has(key)) return;
    const lane = LANE_OF[key] ?? 'read';
    // Every request but bulk ones and progress polls is someone waiting: background work slows down from
    // its arrival (queued in its lane too) until it has been answered.
    if (pace && lane !== 'bulk' && !NOT_INTERACTIVE.has(key)) {
      const ended = pace.interactiveStarted();
      request.interactiveEnded = ended;
      if (reply.raw.writableFinished || reply.raw.destroyed) ended();
      else reply.raw.once('close', ended);
    }
    const admitted = await admission.enter(lane);
    request.admitted = admitted;
    // The slot is given back however the exchange ends: answered, failed, or the client gone (even while
    // it waited in the queue: then the response is already closed).
    if (reply.raw.writableFinished || reply.raw.destroyed) admitted.release();
    else reply.raw.once('close', () => admitted.release());
  });
  const release = (request: FastifyRequest) => {
    request.admitted?.release();
    request.interactiveEnded?.();
  };
  app.addHook('onRequestAbort', async (request) => release(request));
  app.addHook('onResponse', async (request, reply) => {
    release(request);
    if (request.routeOptions.url === undefined) return;
    const queuedMs = request.admitted?.queuedMs ?? 0;
    timings.record(routeKey(request), queuedMs, Math.max(0, reply.elapsedTime - queuedMs), reply.statusCode >= 500);
  });
}
