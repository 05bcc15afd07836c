import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  EntitiesQuery,
  EntitiesResponse,
  ErrorBody,
  EnrichAllBody,
  EnrichAllResponse,
  EnrichResponse,
  ExtractionStatusResponse,
  ExtractRerunBody,
  ExtractRerunResponse,
  ExtractRetryResponse,
  FactsQuery,
  FactsResponse,
  GraphQuery,
  GraphResponse,
  MemoryParams,
} from '../../src/api/contract.js';
import { assertMemoryId } from '../../src/core/memory-service.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { iso, presentEntity, presentFact } from '../present.js';

export function knowledgeRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const presentStatus = async (accountId: string, memoryId: string) => {
      const status = await deps.knowledge.extractionStatus(accountId, memoryId);
      return {
        memoryId: status.memoryId,
        status: status.status,
        ...(status.error ? { error: status.error } : {}),
        model: status.model,
        attempts: status.attempts,
        updatedAt: iso(status.updatedAt),
        entities: status.entities,
        facts: status.facts,
      };
    };

    app.get(
      '/v1/entities',
      {
        schema: {
          summary: 'Entities extracted from memories',
          description:
            'People, companies, products, concepts, locations, events and dates named in standard saves, with aliases merged. ' +
            'search matches names and aliases (case-insensitive substring); stats counts every entity of the account by type.',
          tags: ['knowledge'],
          querystring: EntitiesQuery,
          response: { 200: EntitiesResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const query = request.query;
        const { items, total, stats } = await deps.knowledge.listEntities(tenant, query);
        return {
          success: true as const,
          entities: items.map(presentEntity),
          pagination: { limit: query.limit, offset: query.offset, total },
          stats,
        };
      },
    );

    app.get(
      '/v1/facts',
      {
        schema: {
          summary: 'Facts extracted from memories',
          description:
            'Current facts by default, highest confidence first; includeSuperseded=true adds the facts that later ones replaced ' +
            '(validTo set). confidence is a minimum; entity is a name, alias or id (facts whose subject or object it is).',
          tags: ['knowledge'],
          querystring: FactsQuery,
          response: { 200: FactsResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const query = request.query;
        const { items, total } = await deps.knowledge.listFacts(tenant, {
          entity: query.entity,
          category: query.category,
          confidence: query.confidence,
          includeSuperseded: query.includeSuperseded ?? false,
          limit: query.limit,
          offset: query.offset,
        });
        return { success: true as const, facts: items.map(presentFact), pagination: { limit: query.limit, offset: query.offset, total } };
      },
    );

    app.get(
      '/v1/graph',
      {
        schema: {
          summary: 'The knowledge graph around an entity',
          description:
            'Breadth-first from entity (name, alias or id) up to depth 3; within each ring the strongest edges first, so limit ' +
            'keeps the strongest neighbourhood. Without entity, the most mentioned entities and the edges among them. ' +
            'An unknown entity gives an empty graph.',
          tags: ['knowledge'],
          querystring: GraphQuery,
          response: { 200: GraphResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const graph = await deps.knowledge.graph(tenant, request.query);
        return { success: true as const, ...graph };
      },
    );

    app.get(
      '/v1/extract/:id',
      {
        schema: {
          summary: 'Extraction status of a memory',
          description: 'Addition: pending, processing, completed or failed (with the reason). Turbo memories have none (404).',
          tags: ['knowledge'],
          params: MemoryParams,
          response: { 200: ExtractionStatusResponse, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        assertMemoryId(request.params.id);
        return { success: true as const, ...(await presentStatus(tenant, request.params.id)) };
      },
    );

    app.post(
      '/v1/memory/:id/enrich',
      {
        schema: {
          summary: 'Run the extraction a turbo save skipped',
          description:
            'Extracts entities, facts and relationships from the memory (inline with the built-in extractor, queued with Ollama) and makes it a standard memory. Counts as one more request.',
          tags: ['knowledge'],
          params: MemoryParams,
          response: { 200: EnrichResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireWrite(request.auth);
        const memory = await deps.memories.enrich(tenant, request.params.id);
        return { success: true as const, message: 'Memory enriched', ...(await presentStatus(tenant, memory.id)) };
      },
    );

    app.post(
      '/v1/enrich',
      {
        schema: {
          summary: 'Enrich every turbo memory',
          description: 'Addition: runs extraction for every memory saved through turbo and not enriched since.',
          tags: ['knowledge'],
          body: EnrichAllBody,
          response: { 200: EnrichAllResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const context = requireWrite(request.auth);
        const { tenant } = context;
        const memoryIds = await deps.memories.turboIds(tenant);
        for (const id of memoryIds) await deps.memories.enrich(tenant, id);
        // The spec: re-processing turbo content counts as additional usage (one request per memory).
        await deps.accounts.chargeExtra(context, '/v1/enrich (per memory)', memoryIds.length - 1);
        return {
          success: true as const,
          message: memoryIds.length === 0 ? 'No turbo memories to enrich.' : `Enriched ${memoryIds.length} memories.`,
          enriched: memoryIds.length,
          memoryIds,
        };
      },
    );

    app.post(
      '/v1/extract/retry',
      {
        schema: {
          summary: 'Retry failed extractions',
          description: 'Addition: runs extraction again for every memory whose extraction failed (in the background with Ollama).',
          tags: ['knowledge'],
          response: { 200: ExtractRetryResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireWrite(request.auth);
        const memoryIds = await deps.knowledge.retryFailed(tenant);
        return {
          success: true as const,
          message: memoryIds.length === 0 ? 'No failed extractions.' : `Retrying ${memoryIds.length} extraction(s).`,
          retried: memoryIds.length,
          memoryIds,
        };
      },
    );

    app.post(
      '/v1/extract/rerun',
      {
        schema: {
          summary: 'Extract memories again with the current model',
          description:
            'Addition: runs extraction again, in the background, for every memory another extraction model extracted (after switching models), or with `all` for every standard memory. What they contributed to entities, facts and relationships is replaced. Counts as one request per memory it re-processes.',
          tags: ['knowledge'],
          body: ExtractRerunBody,
          response: { 200: ExtractRerunResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const context = requireWrite(request.auth);
        const memoryIds = await deps.knowledge.rerun(context.tenant, { all: request.body.all });
        // As enrich: re-processing content counts as additional usage (one request per memory).
        if (memoryIds.length > 1) await deps.accounts.chargeExtra(context, '/v1/extract/rerun (per memory)', memoryIds.length - 1);
        return {
          success: true as const,
          message:
            memoryIds.length === 0
              ? request.body.all
                ? 'No extracted memories.'
                : 'Every memory was extracted by the current model.'
              : `Extracting ${memoryIds.length} memor${memoryIds.length === 1 ? 'y' : 'ies'} again in the background.`,
          queued: memoryIds.length,
          memoryIds,
        };
      },
    );
  };
}
