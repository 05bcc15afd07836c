import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, QueryBody, QueryResponse } from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth } from '../plugins/auth.js';
import { presentQueryHit } from '../present.js';

export function queryRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/query',
      {
        schema: {
          summary: 'Structured query: filters, sorts, fields and aggregations',
          description:
            'Filters on built-in fields run inside LanceDB; metadata.<path> conditions are evaluated on the rows the ' +
            'rest of the filter leaves, so totals and pages are exact. Aggregations cover every match, not the page. ' +
            'With query text, the candidates are the 1,000 best memories by hybrid relevance at or above threshold. ' +
            'Date-only values and histogram buckets use the account time zone (UTC by default).',
          tags: ['search'],
          body: QueryBody,
          response: { 200: QueryResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const { account, tenant } = requireAuth(request.auth);
        const body = request.body;
        const { hits, total, aggregations } = await deps.query.run(tenant, body, { timezone: account.settings.timezone });
        return {
          success: true as const,
          results: hits.map(presentQueryHit),
          ...(aggregations ? { aggregations } : {}),
          pagination: { limit: body.limit, offset: body.offset, total, hasMore: body.offset + hits.length < total },
        };
      },
    );
  };
}
