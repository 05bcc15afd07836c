import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, ExportQuery, IMPORT_MAX_RECORDS, ImportBody, ImportQuery, ImportResponse } from '../../src/api/contract.js';
import { parseNdjson } from '../../src/core/export/format.js';
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { parseBound } from '../present.js';


/** An import request carries at most IMPORT_MAX_RECORDS records (memories up to 100 KB each, vectors). */
const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

/** Export and import in the mem-export format (additions): see src/core/export/format.ts. */
export function exportRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // NDJSON bodies are handed to the route as text (this plugin's routes only).
    app.addContentTypeParser('application/x-ndjson', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => {
      done(null, body);
    });

    app.get(
      '/v1/export',
      {
        schema: {
          summary: "Export the account's data as JSON lines (addition)",
          description:
            'Streams application/x-ndjson: a header line {type: header, format: mem-export, version: 1, exportedAt, embedding {modelId, dimension}, filter, withVectors}, ' +
            'then memory, entity, fact, edge, space and watch lines (each kind in id order), then {type: end, counts}. ' +
            'Two exports of the same data differ only in header.exportedAt. A stream without its end line was cut off.',
          tags: ['export'],
          querystring: ExportQuery,
          // The stream is NDJSON; errors stay JSON envelopes, so the media type is per status, not `produces`.
          response: {
            200: { description: 'One JSON record per line, streamed.', content: { 'application/x-ndjson': { schema: z.string() } } },
          },
        },
      },
      async (request, reply) => {
        const { tenant } = requireAuth(request.auth);
        const query = request.query;
        const lines = deps.exporter.lines(tenant, {
          spaceId: query.spaceId,
          since: parseBound(query.since, 'start'),
          withVectors: query.withVectors ?? false,
        });
        const untyped: FastifyReply = reply;
        return untyped
          .header('content-type', 'application/x-ndjson; charset=utf-8')
          .header('cache-control', 'no-cache')
          .send(Readable.from(lines));
      },
    );

    app.post(
      '/v1/import',
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          summary: 'Import export records into the account (addition)',
          description:
            `Body: application/x-ndjson (the lines of an export) or JSON {records: [...]}; at most ${IMPORT_MAX_RECORDS} records per request (send a large file in batches, each starting with the header line). ` +
            'Idempotent: a record whose id the account has is unchanged when identical and replaced (updated) when different; ids and timestamps are kept. ' +
            "Memories reuse the file's vectors when the header names this daemon's embedding model, else they are embedded; entities, facts and edges are restored as they are. " +
            'A memory line may omit id (derived from createdAt, spaceId and content) and extraction (then it is extracted like a save). Watches: owner only. dryRun=true writes nothing.',
          tags: ['export'],
          consumes: ['application/x-ndjson', 'application/json'],
          querystring: ImportQuery,
          body: ImportBody,
          response: { 200: ImportResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const { account, tenant } = requireWrite(request.auth);
        const body = request.body;
        const records = typeof body === 'string' ? parseNdjson(body) : body.records.map((value) => ({ value }));
        if (records.length > IMPORT_MAX_RECORDS) {
          throw new MemError('LIMIT_EXCEEDED', `Too many records: at most ${IMPORT_MAX_RECORDS.toLocaleString('en-US')} per request, this one has ${records.length.toLocaleString('en-US')}.`, {
            hint: 'Send the file in batches (mem import does).',
          });
        }
        const report = await deps.importer.import(tenant, records, {
          dryRun: request.query.dryRun ?? false,
          allowWatches: account.isOwner,
          defaultSpace: account.settings.defaultSpace || undefined,
          assertCanStore: (adding) => deps.accounts.assertCanStore(account, adding),
        });
        return { success: true as const, ...report };
      },
    );
  };
}
