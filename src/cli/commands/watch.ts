import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { IngestStatusResponse, Watch } from '../../api/contract.js';
import { DEFAULT_WATCH_GLOB } from '../../api/vocabulary.js';
import type { MemClient } from '../../client/http-client.js';
import { MemError } from '../../errors.js';
import { daemonArgument } from '../completion-values.js';
import { clientFor } from '../context.js';
import { parseList } from '../input.js';
import { shortDate, style, table, truncate } from '../output.js';
import { Progress } from '../progress.js';

const POLL_MS = 300;

/**
 * The daemon reads the folder, so it needs an absolute path: `~` (quoted, so the shell left it) is expanded
 * the way a shell does, from $HOME, and a relative path is taken from the current directory.
 */
export function absolutePath(input: string): string {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if ((input === '~' || input.startsWith('~/')) && home) return join(home, input.slice(1));
  return isAbsolute(input) ? resolve(input) : resolve(process.cwd(), input);
}

async function waitForScan(client: MemClient, jobId: string, quiet: boolean): Promise<IngestStatusResponse> {
  const progress = new Progress('first scan', !quiet);
  for (;;) {
    const status = await client.ingestStatus(jobId);
    progress.update(status.progress.completed + status.progress.failed, status.progress.total, status.status === 'pending' ? '(waiting for a free job slot)' : '');
    if (status.status === 'completed' || status.status === 'failed') {
      progress.done();
      return status;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, POLL_MS));
  }
}

function renderWatches(watches: readonly Watch[]): string {
  if (watches.length === 0) return style.dim('No folder is watched. Add one with `mem watch add <dir>`.');
  return table(
    watches.map((watch) => [
      watch.id,
      truncate(watch.path, 48),
      watch.state,
      String(watch.fileCount),
      truncate([watch.tags.join(','), watch.spaceId && `space ${watch.spaceId}`, watch.keepDeleted && 'keep deleted'].filter(Boolean).join('; '), 30),
      watch.lastEventAt ? shortDate(watch.lastEventAt) : '-',
      watch.lastError ? truncate(watch.lastError, 40) : '',
    ]),
    ['ID', 'PATH', 'STATE', 'FILES', 'OPTIONS', 'LAST EVENT', 'LAST ERROR'],
  );
}

export function registerWatchCommands(program: Command): void {
  const watch = program
    .command('watch')
    .description('Folders that ingest themselves: the daemon saves their files and follows every change')
    .addHelpText(
      'after',
      `
A watched folder's files become memories (one per file, keyed by its path). Changed files update their
memory, deleted files delete it (unless --keep-deleted), renamed files keep it. Hidden, temporary and
editor files, and files over ingest.maxUploadBytes, are ignored. Watches live in the daemon: they
restart with it.

Examples:
  $ mem watch add ~/notes --glob '**/*.{md,txt,pdf,html}' --tags notes --space personal
  $ mem watch list
  $ mem watch remove ~/notes`,
    );

  watch
    .command('add')
    .description('Watch a folder: save its files now and follow their changes')
    .argument('<dir>', 'the folder (~ and relative paths are expanded)')
    .option('--glob <pattern>', `files to take, relative to the folder (case-insensitive)`, DEFAULT_WATCH_GLOB)
    .option('-t, --tags <tags>', 'comma-separated tags for its memories')
    .option('-s, --space <space>', 'space of its memories (default: your default space)')
    .option('--keep-deleted', "keep a file's memory when the file is deleted")
    .option('--no-wait', 'print the watch and the first scan job id, and return at once')
    .addHelpText(
      'after',
      `
Examples:
  $ mem watch add ~/notes
  $ mem watch add ./papers --glob '**/*.pdf' --tags papers --keep-deleted
  $ mem watch add ~/notes --no-wait --json`,
    )
    .action(async (dir: string, options: { glob: string; tags?: string; space?: string; keepDeleted?: boolean; wait: boolean }, command: Command) => {
      const { client, output } = await clientFor(command);
      const created = await client.addWatch({
        path: absolutePath(dir),
        glob: options.glob,
        tags: parseList(options.tags),
        spaceId: options.space,
        keepDeleted: Boolean(options.keepDeleted),
      });
      if (!options.wait) {
        output.result(created, () => `${style.green('Watching')} ${created.watch.path} (${created.watch.id})\nFirst scan: job ${created.jobId}`);
        return;
      }
      output.info(`Watching ${created.watch.path} (${created.watch.id})`);
      const scan = await waitForScan(client, created.jobId, output.json || output.options.quiet);
      output.result({ ...created, scan }, () => {
        const failed = scan.progress.failed > 0 ? `, ${scan.progress.failed} failed (see mem ingest --status ${scan.jobId})` : '';
        return `${style.green('Saved')} ${scan.progress.completed} of ${scan.progress.total} files${failed}; following ${created.watch.path}`;
      });
      if (scan.status === 'failed') process.exitCode = 1;
    });

  watch
    .command('list')
    .alias('ls')
    .description('List watched folders with their state and tracked file counts')
    .addHelpText('after', '\nExamples:\n  $ mem watch list\n  $ mem watch list --json')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.listWatches();
      output.result(response, () => renderWatches(response.watches));
    });

  watch
    .command('remove')
    .alias('rm')
    .description('Stop watching a folder (by its path or watch id); its memories stay')
    .addArgument(daemonArgument('<path-or-id>', 'the folder (as added) or the watch id', 'watches'))
    .addHelpText('after', '\nExamples:\n  $ mem watch remove ~/notes\n  $ mem watch remove wch_01JD3V6Q8X4Z5C2B7N9M0K1H2G')
    .action(async (target: string, _options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const { watches } = await client.listWatches();
      const path = absolutePath(target);
      const found = watches.find((candidate) => candidate.id === target) ?? watches.find((candidate) => candidate.path === path);
      if (!found) {
        throw new MemError('NOT_FOUND', `No watch has the id or path ${target}.`, { hint: 'See your watches with `mem watch list`.' });
      }
      const response = await client.removeWatch(found.id);
      output.result({ ...response, id: found.id, path: found.path }, () => `${style.green('Stopped watching')} ${found.path} (${found.id}); its memories stay.`);
    });
}
