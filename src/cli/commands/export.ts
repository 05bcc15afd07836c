import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { clientFor } from '../context.js';
import { style } from '../output.js';

interface ExportOptions {
  space?: string;
  since?: string;
  withVectors?: boolean;
  output?: string;
}

/** What the end line of an export counts. */
type Counts = Record<string, number>;

function describeCounts(counts: Counts): string {
  return ['memories', 'entities', 'facts', 'edges', 'spaces', 'watches'].map((kind) => `${counts[kind] ?? 0} ${kind}`).join(', ');
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('Export your memories, entities, facts, edges, spaces and watches as JSON lines (stdout or -o FILE)')
    .option('--space <spaceId>', 'only this space (and the knowledge its memories contribute)')
    .option('--since <date>', 'only memories created or updated since this ISO date')
    .option('--with-vectors', "include each memory's passages and vectors (an import into the same model skips embedding)")
    .option('-o, --output <file>', 'write to this file (written whole or not at all) instead of stdout')
    .addHelpText(
      'after',
      `
The format (mem-export, version 1) is described in the README: a header line, then one line per record in
id order, then an end line with the counts. Two exports of the same data differ only in the header's
exportedAt. Restore it with \`mem import\`.

Examples:
  $ mem export > mem.jsonl
  $ mem export --space work --since 2026-01-01 -o work.jsonl
  $ mem export --with-vectors -o full.jsonl`,
    )
    .action(async (options: ExportOptions, command: Command) => {
      const { client, output } = await clientFor(command);
      const target = options.output !== undefined ? resolve(options.output) : null;
      const partial = target ? `${target}.partial` : null;
      const stream = partial ? createWriteStream(partial, { mode: 0o600 }) : process.stdout;
      let end: { counts?: Counts } | null = null;
      try {
        for await (const line of client.exportLines({ spaceId: options.space, since: options.since, withVectors: options.withVectors })) {
          if (line.startsWith('{"type":"end"')) end = JSON.parse(line) as { counts?: Counts };
          if (!stream.write(`${line}\n`)) await once(stream, 'drain');
        }
        if (!end) {
          throw new MemError('INTERNAL_ERROR', 'The export was cut off before its end line.', { hint: 'See `mem daemon logs`, then export again.' });
        }
        if (partial && target) {
          (stream as ReturnType<typeof createWriteStream>).end();
          await once(stream, 'finish');
          await rename(partial, target);
        }
      } catch (error) {
        if (partial) {
          (stream as ReturnType<typeof createWriteStream>).destroy();
          await rm(partial, { force: true });
        }
        throw error;
      }
      const counts = end.counts ?? {};
      if (target) output.result({ success: true, path: target, counts }, () => `${style.green('Exported')} ${describeCounts(counts)} to ${target}`);
      else output.info(`Exported ${describeCounts(counts)}`);
    });
}
