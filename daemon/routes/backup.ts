import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { BackupBody, BackupResponse, ErrorBody } from '../../src/api/contract.js';
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireWrite } from '../plugins/auth.js';


/** Backups of the whole data directory (addition, owner only). */
export function backupRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/admin/backup',
      {
        schema: {
          summary: 'Copy the data directory into a new directory, consistently, while the daemon runs (owner only; addition)',
          description:
            'Writes wait while the tables are copied (reads go on); the copy is then opened and its row counts checked. ' +
            'The directory gets lancedb/ and manifest.json (mem version, schema version, embedding model, tables with row counts, createdAt). ' +
            'path: absolute, on the daemon\'s machine, new or empty, not inside the data directory. Restore with `mem restore <dir>` into a stopped daemon.',
          tags: ['admin'],
          body: BackupBody,
          response: { 200: BackupResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        // Every account's data, written with the daemon's own permissions: the owner's decision alone.
        if (!account.isOwner) throw new MemError('FORBIDDEN', 'Only the owner account can back up the data directory.');
        const { manifest, path, durationMs } = await deps.backups.backup(request.body.path);
        const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
        return {
          success: true as const,
          message: `Backed up ${manifest.tables.length} tables (${rows.toLocaleString('en-US')} rows) to ${path}.`,
          path,
          durationMs,
          manifest,
        };
      },
    );
  };
}
