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
import { createHash } from 'node:crypto';
import type { SaveOutcome } from '../../src/core/ingest/document-saves.js';
import { assertCreatedAt } from '../../src/core/memory-service.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite, spaceFor } from '../plugins/auth.js';
import { readUpload } from '../plugins/uploads.js';
import { iso, parseBound, presentMemory, preview } from '../present.js';


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
        const { account, tenant } = auth;
        const body = request.body;
        const upload = request.upload;
        const spaceId = spaceFor(auth, body.spaceId);
        const sent = (memory: MemoryRecord, outcome: SaveOutcome) =>
          reply.status(outcome === 'created' ? 201 : 200).send({
            success: true as const,
            message: outcome === 'created' ? 'Memory saved' : outcome === 'updated' ? 'Memory updated: the source changed' : 'Already saved: unchanged',
            documentId: memory.id,
            data: {
              id: memory.id,
              title: memory.title,
              contentPreview: preview(memory.content),
              tags: [...memory.tags],
              createdAt: iso(memory.createdAt),
            },
          });
        if (upload || body.url !== undefined) {
          if (upload && (body.url !== undefined || body.content !== undefined)) {
            throw new MemError('VALIDATION_ERROR', 'Send a file, a url or content, not several.');
          }
          if (!upload && body.content !== undefined) throw new MemError('VALIDATION_ERROR', 'Send either content or url, not both.');
          if (body.context !== undefined) throw new MemError('VALIDATION_ERROR', 'context applies to content saves, not to URLs or files.');
          if (body.author !== undefined) throw new MemError('VALIDATION_ERROR', 'author applies to content saves, not to URLs or files.');
          await deps.accounts.assertCanStore(account, { memories: 1, bytes: upload?.body.length ?? 0 });
          const document = upload
            ? await deps.documentSource.fromFile(upload.body, upload.mimeType, upload.filename)
            : await deps.documentSource.fromUrl((body.url as string).trim());
          const source = upload
            ? ({ field: 'fileHash', value: createHash('sha256').update(upload.body).digest('hex') } as const)
            : ({ field: 'sourceUrl', value: (body.url as string).trim() } as const);
          const { memory, outcome } = await deps.documents.save(tenant, {
            document,
            source,
            title: body.title,
            tags: body.tags,
            metadata: {
              ...(body.metadata ?? {}),
              ...(upload ? { filename: upload.filename, mimeType: upload.mimeType, sizeBytes: upload.body.length } : {}),
            },
            spaceId,
          });
          return sent(memory, outcome);
        }
        if (body.content === undefined) {
          throw new MemError('VALIDATION_ERROR', 'Provide content, url, or a file (multipart/form-data).');
        }
        await deps.accounts.assertCanStore(account, { memories: 1, bytes: Buffer.byteLength(body.content) });
        const input = {
          content: body.content,
          title: body.title,
          description: body.description,
          tags: body.tags,
          metadata: body.metadata,
          spaceId,
          context: body.context,
          author: body.author,
          createdAt: parseBound(body.createdAt, 'start'),
        };
        if (body.async) {
          if (!input.content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
          if (input.createdAt !== undefined) assertCreatedAt(input.createdAt, Date.now());
          const pending = await deps.asyncSaves.submit(tenant, input);
          return reply.status(201).send({
            success: true as const,
            message: 'Save accepted; poll statusUrl for the result.',
            pendingId: pending.id,
            statusUrl: `/v1/save/status/${pending.id}`,
          });
        }
        return sent(await deps.memories.save(tenant, input), 'created');
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
        const { account, tenant } = requireWrite(request.auth);
        if (request.body.content !== undefined) {
          await deps.accounts.assertCanStore(account, { memories: 0, bytes: Buffer.byteLength(request.body.content) });
        }
        const memory = await deps.memories.update(tenant, request.params.id, request.body);
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
