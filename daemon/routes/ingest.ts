import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  IngestAsyncResponse,
  IngestBody,
  IngestStatusResponse,
  IngestSyncResponse,
  JobIdParams,
  JobListQuery,
  JobListResponse,
  WebhookSecretResponse,
} from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite, spaceFor } from '../plugins/auth.js';
import { iso, parseBound, presentIngestJob, presentJob } from '../present.js';


/** Bulk ingest bodies may carry up to 10,000 items (enterprise). */
const INGEST_BODY_LIMIT = 64 * 1024 * 1024;

export function ingestRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/ingest',
      {
        bodyLimit: INGEST_BODY_LIMIT,
        schema: {
          summary: 'Bulk ingest: many items (content or url each), asynchronous by default',
          description:
            'Items per request by plan: free 100, pro 1,000, enterprise 10,000 (LIMIT_EXCEEDED). Items without content and url: VALIDATION_ERROR with invalidIndices. Async (default): 201 with jobId and statusUrl (the job is created); a webhook gets a signed POST when the job ends. async: false processes every item before answering (200).',
          tags: ['ingest'],
          body: IngestBody,
          response: { 200: IngestSyncResponse, 201: IngestAsyncResponse, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const auth = requireWrite(request.auth);
        const body = request.body;
        const items = body.items.map((item) => ({ ...item, spaceId: spaceFor(auth, item.spaceId), createdAt: parseBound(item.createdAt, 'start') }));
        const result = await deps.saves.ingest(auth, items, { webhook: body.webhook, turbo: body.turbo, async: body.async });
        if (result.kind === 'done') return reply.status(200).send({ success: true as const, processed: result.results.length, results: result.results });
        return reply.status(201).send(presentIngestJob(result.job, items.length));
      },
    );

    app.get(
      '/v1/ingest/status/:jobId',
      {
        schema: {
          summary: 'Status and progress of an ingest job',
          tags: ['ingest'],
          params: JobIdParams,
          response: { 200: IngestStatusResponse, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const view = await deps.ingest.status(tenant, request.params.jobId);
        const job = presentJob(view.job);
        return {
          success: true as const,
          jobId: job.jobId,
          status: job.status,
          progress: job.progress,
          startedAt: job.startedAt,
          completedAt: job.completedAt,
          createdAt: iso(view.job.createdAt),
          documents: [...view.documents],
          errors: [...view.errors],
          webhook: view.delivery
            ? {
                url: view.delivery.url,
                delivered: view.delivery.delivered,
                attempts: view.delivery.attempts.map((attempt) => ({ ...attempt, at: iso(attempt.at) })),
              }
            : null,
        };
      },
    );

    app.get(
      '/v1/jobs',
      {
        schema: {
          summary: 'Recent jobs of the account (ingest and reindex), newest first (addition)',
          tags: ['ingest'],
          querystring: JobListQuery,
          response: { 200: JobListResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const jobs = await deps.ingest.list(tenant, request.query.limit);
        return { success: true as const, jobs: jobs.map(presentJob) };
      },
    );

    app.get(
      '/v1/webhooks/secret',
      {
        schema: {
          summary: "The account's webhook signing secret (addition); created on first use",
          tags: ['ingest'],
          response: { 200: WebhookSecretResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        return {
          success: true as const,
          secret: await deps.accounts.webhookSecret(account.id),
          header: 'X-Mem-Signature',
          scheme: 'sha256=<hex HMAC-SHA256 of `${X-Mem-Timestamp}.${raw body}`>',
        };
      },
    );
  };
}
