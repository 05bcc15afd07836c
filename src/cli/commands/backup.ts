import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { confirm } from '../confirm.js';
import { clientFor, configFor, outputFor } from '../context.js';
import { style } from '../output.js';

const rowsOf = (tables: readonly { name: string; rows: number }[], name: string) => tables.find((table) => table.name === name)?.rows ?? 0;

export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('Copy the data directory into a new directory, consistently, while the daemon runs (owner only)')
    .argument('<dir>', 'a new or empty directory (on the daemon\'s machine)')
    .addHelpText(
      'after',
      `
Writes wait while the daemon copies its tables (reads go on); the copy is opened and its row counts are
checked, and manifest.json records the mem and schema versions, the embedding model and every table's rows.
Restore it with \`mem restore <dir>\` while the daemon is stopped.

Examples:
  $ mem backup ~/backups/mem-$(date +%F)`,
    )
    .action(async (dir: string, _options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.backup(resolve(dir));
      output.result(response, () => {
        const tables = response.manifest.tables;
        return `${style.green('Backed up')} ${rowsOf(tables, 'memories')} memories (${tables.length} tables) to ${response.path} in ${response.durationMs} ms`;
      });
    });

  program
    .command('restore')
    .description("Restore a backup into the stopped daemon's data directory (the current one is moved aside, not deleted)")
    .argument('<dir>', 'a directory written by `mem backup`')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      `
The backup is checked first (its manifest, and that every table opens with the rows the manifest lists).
The data directory there now is renamed to lancedb.bak-<timestamp> beside it, then the backup is copied in
and checked again. The daemon of this MEM_HOME must be stopped (\`mem daemon stop\`).

Examples:
  $ mem daemon stop && mem restore ~/backups/mem-2026-03-01 --yes && mem daemon start`,
    )
    .action(async (dir: string, options: { yes?: boolean }, command: Command) => {
      const output = outputFor(command);
      const loaded = await configFor(command);
      const [{ runningDaemon }, { readApiKey }] = await Promise.all([import('../daemon-process.js'), import('../../config/credentials.js')]);
      const running = runningDaemon(loaded);
      if (running) {
        throw new MemError('VALIDATION_ERROR', `The mem daemon (pid ${running.pid}) is running on ${running.url}; a restore needs it stopped.`, {
          hint: 'Stop it with `mem daemon stop`, restore, then start it again.',
        });
      }
      const from = resolve(dir);
      await confirm(`Restore ${from} into ${loaded.storageUri}? The data there now is moved aside, not deleted.`, options);
      // Only the daemon side opens LanceDB: the restore runs it in-process, as `mem serve` does.
      const { restoreBackup } = await import('../../../daemon/restore.js');
      const stored = await readApiKey(loaded.paths);
      const report = await restoreBackup(loaded, from, { apiKey: stored?.key });
      output.result({ success: true, ...report }, () =>
        [
          `${style.green('Restored')} the backup of ${report.manifest.createdAt} (${rowsOf(report.manifest.tables, 'memories')} memories, mem ${report.manifest.memVersion}) into ${report.dataDir}`,
          report.movedAside ? `  the previous data directory is now ${report.movedAside}` : '',
          report.apiKey === 'valid'
            ? ''
            : style.yellow(
                `The CLI ${report.apiKey === 'none' ? 'has no API key here' : "has an API key the restored data does not know"}: once the daemon runs, \`mem login\` with a key of the backed-up data.`,
              ),
          style.dim('Start the daemon: mem daemon start'),
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
}
