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
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { iso, parseBound, presentMemory, preview } from '../present.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 422: ErrorBody };

export function memoryRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/save',
      {
        schema: {
          summary: 'Save content as a memory',
          description:
            'Synchronous by default (201 with the memory); `async: true` answers 202 with a pendingId to poll.',
          tags: ['memories'],
          body: SaveBody,
          response: { 201: SaveSyncResponse, 202: SaveAsyncResponse, ...errors },
        },
      },
      async (request, reply) => {
        const { account } = requireWrite(request.auth);
        const body = request.body;
        if (body.content === undefined && body.url === undefined) {
          throw new MemError('VALIDATION_ERROR', 'Provide either content or url.');
        }
        if (body.content === undefined) {
          throw new MemError('INVALID_URL', 'Saving from a URL is not available in this version of mem yet.', {
            hint: 'Fetch the page yourself and save its text as content.',
          });
        }
        const input = {
          content: body.content,
          title: body.title,
          description: body.description,
          tags: body.tags,
          metadata: body.metadata,
          spaceId: body.spaceId ?? (account.settings.defaultSpace || undefined),
        };
        if (body.async) {
          if (!input.content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
          const pending = await deps.asyncSaves.submit(account.id, input);
          return reply.status(202).send({
            success: true as const,
            message: 'Save accepted; poll statusUrl for the result.',
            pendingId: pending.id,
            statusUrl: `/v1/save/status/${pending.id}`,
          });
        }
        const memory = await deps.memories.save(account.id, input);
        return reply.status(201).send({
          success: true as const,
          message: 'Memory saved',
          documentId: memory.id,
          data: {
            id: memory.id,
            title: memory.title,
            contentPreview: preview(memory.content),
            tags: [...memory.tags],
            createdAt: iso(memory.createdAt),
          },
        });
      },
    );

    app.get(
      '/v1/save/status/:pendingId',
      {
        schema: {
          summary: 'Status of an async save',
          tags: ['memories'],
          params: PendingParams,
          response: { 200: SaveStatusResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireAuth(request.auth);
        const record = await deps.asyncSaves.status(account.id, request.params.pendingId);
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
          response: { 200: MemoryResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireAuth(request.auth);
        return { success: true as const, data: presentMemory(await deps.memories.get(account.id, request.params.id)) };
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
          response: { 200: MemoryResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        const memory = await deps.memories.update(account.id, request.params.id, request.body);
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
          response: { 200: MessageResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        await deps.memories.delete(account.id, request.params.id);
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
          response: { 200: BulkDeleteResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        const { deleted, failed } = await deps.memories.deleteMany(account.id, request.body.ids);
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
          response: { 200: ListResponse, ...errors },
        },
      },
      async (request) => {
        const { account } = requireAuth(request.auth);
        const query = request.query;
        const tags = query.tags
          ?.split(',')
          .map((tag) => tag.trim())
          .filter(Boolean);
        const { items, total } = await deps.memories.list(
          account.id,
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
