import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  MessageResponse,
  WatchBody,
  WatchCreatedResponse,
  WatchIdParams,
  WatchListResponse,
} from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { MemError } from '../../src/errors.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { presentWatch } from '../present.js';

/** Folder watches (addition): folders whose files the daemon keeps saved as memories. */
export function watchRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/watches',
      {
        schema: {
          summary: 'Watch a folder: its files become memories and follow the files (addition)',
          description:
            'The first scan is an ingest job (jobId, GET /v1/ingest/status/:jobId). Afterwards added and changed files are saved (one memory per file, keyed by metadata.sourcePath), deleted files delete their memory (kept with keepDeleted), renamed files keep theirs. Hidden, temporary and editor files and files over ingest.maxUploadBytes are ignored. path must be an absolute existing directory (VALIDATION_ERROR). Owner account only (FORBIDDEN otherwise).',
          tags: ['watch'],
          body: WatchBody,
          response: { 201: WatchCreatedResponse, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const { account, tenant } = requireWrite(request.auth);
        // The daemon reads the folder with its own file permissions: only the person running it may choose folders.
        if (!account.isOwner) {
          throw new MemError('FORBIDDEN', 'Only the owner account can watch folders: the daemon reads them with its own permissions.');
        }
        const body = request.body;
        const { view, job } = await deps.watches.add(tenant, {
          path: body.path,
          glob: body.glob,
          tags: body.tags,
          spaceId: body.spaceId ?? account.settings.defaultSpace,
          keepDeleted: body.keepDeleted,
        });
        return reply.status(201).send({
          success: true as const,
          message: `Watching ${view.record.path}; the first scan saves ${job.total} files.`,
          watch: presentWatch(view),
          jobId: job.id,
          statusUrl: `/v1/ingest/status/${job.id}`,
        });
      },
    );

    app.get(
      '/v1/watches',
      {
        schema: {
          summary: 'The watched folders of the account and their state (addition)',
          tags: ['watch'],
          response: { 200: WatchListResponse },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        return { success: true as const, watches: (await deps.watches.list(tenant)).map(presentWatch) };
      },
    );

    app.delete(
      '/v1/watches/:id',
      {
        schema: {
          summary: 'Stop watching a folder; the memories of its files stay (addition)',
          tags: ['watch'],
          params: WatchIdParams,
          response: { 200: MessageResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireWrite(request.auth);
        await deps.watches.remove(tenant, request.params.id);
        return { success: true as const, message: 'Watch removed; the memories of its files stay.' };
      },
    );
  };
}
