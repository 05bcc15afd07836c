import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, HealthResponse, JobParams, JobResponse, ReindexResponse, StatusResponse } from '../../src/api/contract.js';
import { VERSION } from '../../src/version.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { presentJob } from '../present.js';

export function systemRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      { schema: { summary: 'Liveness (no auth)', tags: ['system'], response: { 200: HealthResponse } } },
      async () => ({ status: 'ok' as const, version: VERSION }),
    );

    app.get(
      '/v1/status',
      {
        schema: {
          summary: 'Daemon status: version, uptime, memory count, models, Ollama reachability, load (addition)',
          tags: ['system'],
          response: { 200: StatusResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const store = deps.storage.memories(tenant);
        let readMs = 0;
        const readStarted = performance.now();
        const [memoryCount, missing, ollama] = await Promise.all([
          store.count().finally(() => (readMs = performance.now() - readStarted)),
          store.idsWithoutVectors(1_000_000).then((ids) => ids.length),
          deps.runtime.checkOllama(),
        ]);
        return {
          success: true as const,
          version: VERSION,
          pid: process.pid,
          address: deps.runtime.address(),
          uptimeSeconds: Math.round((Date.now() - deps.runtime.startedAt) / 1000),
          memoryCount,
          dataDir: deps.runtime.dataDir,
          models: {
            embedding: {
              provider: deps.embedder.provider,
              model: deps.embedder.modelId,
              dimension: deps.embedder.dimension,
            },
          },
          ollama: { host: deps.runtime.ollamaHost, reachable: ollama.reachable, models: ollama.models },
          vectors: { missing },
          extraction: { model: deps.knowledge.extractionModel, queued: deps.knowledge.queuedExtractions(tenant) },
          load: deps.load.report(),
          storage: { ...deps.runtime.storage, readMs: Math.round(readMs * 10) / 10 },
        };
      },
    );

    app.post(
      '/v1/reindex',
      {
        schema: {
          summary: 'Re-embed memories into the current embedding model (background job; addition)',
          tags: ['system'],
          body: z.object({ all: z.boolean().default(false) }).default({ all: false }),
          response: { 201: ReindexResponse, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const { tenant } = requireWrite(request.auth);
        const job = await deps.reindexer.start(tenant, { all: request.body.all });
        return reply.status(201).send({
          success: true as const,
          message: job.total === 0 ? 'Nothing to reindex.' : `Reindexing ${job.total} memories.`,
          jobId: job.id,
          statusUrl: `/v1/jobs/${job.id}`,
          total: job.total,
        });
      },
    );

    app.get(
      '/v1/jobs/:jobId',
      {
        schema: {
          summary: 'Status of a background job (addition)',
          tags: ['system'],
          params: JobParams,
          response: { 200: JobResponse, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        return { success: true as const, ...presentJob(await deps.ingest.job(tenant, request.params.jobId)) };
      },
    );
  };
}
