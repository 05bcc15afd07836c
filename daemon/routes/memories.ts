import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  BulkDeleteBody,
  BulkDeleteResponse,
  ErrorBody,
  ListQuery,
  ListResponse,
  MemoryParams,
  MemoryResponse,
  MessageResponse,
  PendingParams,
  SaveAsyncResponse,
  SaveBody,
  SaveStatusResponse,
  SaveSyncResponse,
  UpdateBody,
} from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite, spaceFor } from '../plugins/auth.js';
import { readUpload } from '../plugins/uploads.js';
import { parseBound, presentMemory, presentPendingSave, presentSaved } from '../present.js';


export function memoryRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/save',
      {
        schema: {
          summary: 'Save content, a URL or an uploaded file as a memory',
          description:
            'Synchronous by default (201 with the memory); `async: true` answers 201 with a pendingId to poll (content only): the pending save is created, the memory follows. ' +
            '`url` fetches the page and extracts its readable text; multipart/form-data with a `file` part (plus the same fields as form fields; tags comma-separated, metadata as JSON) uploads a file. ' +
            'URL and file saves are idempotent: the same URL again updates its memory when the text changed (200) and does nothing when it did not (200, "Already saved: unchanged"); the same file bytes find the memory they made.',
          tags: ['memories'],
          consumes: ['application/json', 'multipart/form-data'],
          body: SaveBody,
          response: { 200: SaveSyncResponse, 201: SaveSyncResponse.or(SaveAsyncResponse), 403: ErrorBody, 422: ErrorBody },
        },
        preValidation: async (request) => {
          if (request.isMultipart()) await readUpload(request);
        },
      },
      async (request, reply) => {
        const auth = requireWrite(request.auth);
        const body = request.body;
        const result = await deps.saves.save(auth, {
          content: body.content,
          url: body.url,
          file: request.upload ?? undefined,
          async: body.async,
          title: body.title,
          description: body.description,
          tags: body.tags,
          metadata: body.metadata,
          spaceId: spaceFor(auth, body.spaceId),
          context: body.context,
          author: body.author,
          createdAt: parseBound(body.createdAt, 'start'),
        });
        if (result.kind === 'pending') return reply.status(201).send(presentPendingSave(result.pending));
        return reply.status(result.outcome === 'created' ? 201 : 200).send(presentSaved(result.memory, result.outcome));
      },
    );

    app.get(
      '/v1/save/status/:pendingId',
      {
        schema: {
          summary: 'Status of an async save',
          tags: ['memories'],
          params: PendingParams,
          response: { 200: SaveStatusResponse, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const record = await deps.asyncSaves.status(tenant, request.params.pendingId);
        return {
          success: true as const,
          status: record.status,
          ...(record.status === 'completed' && record.documentId ? { documentId: record.documentId } : {}),
          ...(record.status === 'failed' && record.error ? { error: record.error } : {}),
        };
      },
    );

    app.get(
      '/v1/memory/:id',
      {
        schema: {
          summary: 'Read one memory',
          tags: ['memories'],
          params: MemoryParams,
          response: { 200: MemoryResponse, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        return { success: true as const, data: presentMemory(await deps.memories.get(tenant, request.params.id)) };
      },
    );

    app.patch(
      '/v1/memory/:id',
      {
        schema: {
          summary: 'Update a memory (addition to the spec)',
          description: 'Changing content (or title) re-embeds the memory; updatedAt is set.',
          tags: ['memories'],
          params: MemoryParams,
          body: UpdateBody,
          response: { 200: MemoryResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const memory = await deps.saves.update(requireWrite(request.auth), request.params.id, request.body);
        return { success: true as const, data: presentMemory(memory) };
      },
    );

    app.delete(
      '/v1/memory/:id',
      {
        schema: {
          summary: 'Delete a memory permanently',
          tags: ['memories'],
          params: MemoryParams,
          response: { 200: MessageResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireWrite(request.auth);
        await deps.memories.delete(tenant, request.params.id);
        return { success: true as const, message: 'Memory deleted' };
      },
    );

    app.post(
      '/v1/memories/delete',
      {
        schema: {
          summary: 'Delete several memories',
          description: 'Ids that are malformed or not found are listed in failed[] as {id, error}.',
          tags: ['memories'],
          body: BulkDeleteBody,
          response: { 200: BulkDeleteResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireWrite(request.auth);
        const { deleted, failed } = await deps.memories.deleteMany(tenant, request.body.ids);
        return { success: true as const, deleted: deleted.length, failed };
      },
    );

    app.get(
      '/v1/memories',
      {
        schema: {
          summary: 'List memories, newest first',
          tags: ['memories'],
          querystring: ListQuery,
          response: { 200: ListResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const query = request.query;
        const tags = query.tags
          ?.split(',')
          .map((tag) => tag.trim())
          .filter(Boolean);
        const { items, total } = await deps.memories.list(
          tenant,
          {
            spaceId: query.spaceId,
            tags,
            after: parseBound(query.after, 'start'),
            before: parseBound(query.before, 'end'),
          },
          { limit: query.limit, offset: query.offset },
        );
        return {
          success: true as const,
          data: items.map(presentMemory),
          pagination: {
            limit: query.limit,
            offset: query.offset,
            total,
            hasMore: query.offset + items.length < total,
          },
        };
      },
    );
  };
}
