import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, SearchBody, SearchResponse } from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth } from '../plugins/auth.js';
import { iso, parseBound } from '../present.js';

export function searchRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/search',
      {
        schema: {
          summary: 'Search memories by meaning and words',
          description:
            'score is calibrated 0-1 and comparable across queries; results below threshold are dropped. ' +
            'Filters (spaceId, tags: any of, after/before on createdAt) apply before ranking.',
          tags: ['search'],
          body: SearchBody,
          response: { 200: SearchResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const body = request.body;
        const { hits, total } = await deps.memories.search(tenant, {
          query: body.query,
          limit: body.limit,
          offset: body.offset,
          threshold: body.threshold,
          hybrid: body.hybrid,
          explain: body.explain,
          filter: {
            spaceId: body.spaceId,
            tags: body.tags,
            after: parseBound(body.after, 'start'),
            before: parseBound(body.before, 'end'),
          },
        });
        return {
          success: true as const,
          results: hits.map(({ memory, score, explanation }) => ({
            id: memory.id,
            content: memory.content,
            title: memory.title,
            score,
            tags: [...memory.tags],
            createdAt: iso(memory.createdAt),
            spaceId: memory.spaceId,
            ...(Object.keys(memory.metadata).length > 0 ? { metadata: memory.metadata } : {}),
            ...(memory.author ? { author: memory.author } : {}),
            ...(explanation ? { explanation: { ...explanation, matchedTerms: [...explanation.matchedTerms], highlights: explanation.highlights.map(([start, end]) => [start, end] as [number, number]), features: { ...explanation.features } } } : {}),
          })),
          pagination: { limit: body.limit, offset: body.offset, total, hasMore: body.offset + hits.length < total },
        };
      },
    );
  };
}
