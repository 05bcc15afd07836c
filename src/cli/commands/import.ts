import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { ImportCounts, ImportResponse } from '../../api/contract.js';
import type { MemClient } from '../../client/http-client.js';
import { MemError } from '../../errors.js';
import type { SourcedRecord } from '../importers/record.js';
import { clientFor } from '../context.js';
import { parseList } from '../input.js';
import type { Output } from '../output.js';
import { style } from '../output.js';
import { Progress } from '../progress.js';

/** Records per request, and roughly the most bytes: well inside the daemon's limits (5,000, 64 MiB). */
const BATCH_RECORDS = 250;
const BATCH_BYTES = 8 * 1024 * 1024;

const FORMATS = ['mem', 'markdown', 'json', 'chat'] as const;
type Format = (typeof FORMATS)[number];
const TYPES = ['memory', 'entity', 'fact', 'edge', 'space', 'watch'] as const;
type RecordType = (typeof TYPES)[number];

interface ImportOptions {
  from?: string;
  dryRun?: boolean;
  space?: string;
  tags?: string;
  turbo?: boolean;
}

interface Sized extends SourcedRecord {
  readonly bytes: number;
}

interface Summary extends ImportCounts {
  success: boolean;
  dryRun: boolean;
  source: string;
  records: number;
  byType: Record<RecordType, ImportCounts>;
  errors: { origin: string; type: string | null; id: string | null; error: string }[];
}

/** Lines of a file: counts them first (for the progress bar) without reading the file into memory. */
async function countLines(path: string): Promise<number> {
  let count = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 10) count++;
    last = chunk[chunk.length - 1] ?? last;
  }
  return last === 10 ? count : count + 1;
}

/** The records of a mem-export file (or stdin), one per non-empty line, as they are read. */
async function* exportFile(source: string): AsyncGenerator<Sized | { origin: string; error: string }> {
  const input = source === '-' ? process.stdin : createReadStream(source);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    const origin = `line ${number}`;
    try {
      const record = JSON.parse(line) as unknown;
      if (!record || typeof record !== 'object' || Array.isArray(record)) yield { origin, error: 'not a JSON object' };
      else yield { record: record as Record<string, unknown>, origin, bytes: line.length };
    } catch (error) {
      yield { origin, error: `not JSON: ${(error as Error).message}` };
    }
  }
}

function emptyCounts(): ImportCounts {
  return { created: 0, updated: 0, unchanged: 0, failed: 0 };
}

/**
 * Sends records in batches; every batch after the first starts with the file's header (it names the
 * embedding model of the file's vectors). Sums the daemon's answers and maps error positions back to lines.
 */
async function send(
  client: MemClient,
  records: AsyncIterable<Sized | { origin: string; error: string }> | Iterable<Sized>,
  total: number | null,
  summary: Summary,
  output: Output,
): Promise<void> {
  const progress = new Progress(summary.dryRun ? 'import (dry run)' : 'import', total !== null && !output.json && !output.options.quiet);
  let header: Sized | null = null;
  let batch: Sized[] = [];
  let bytes = 0;
  let done = 0;
  const add = (counts: ImportCounts, into: ImportCounts) => {
    into.created += counts.created;
    into.updated += counts.updated;
    into.unchanged += counts.unchanged;
    into.failed += counts.failed;
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const sent = header && batch[0] !== header ? [header, ...batch] : batch;
    const response: ImportResponse = await client.importRecords(
      sent.map((entry) => entry.record),
      { dryRun: summary.dryRun },
    );
    add(response, summary);
    for (const type of TYPES) add(response.byType[type], summary.byType[type]);
    for (const error of response.errors) {
      summary.errors.push({ origin: sent[error.index]?.origin ?? `record ${error.index}`, type: error.type, id: error.id, error: error.error });
    }
    done += batch.length;
    summary.records += batch.length;
    if (total !== null) progress.update(Math.min(done, total), total, summary.failed > 0 ? `(${summary.failed} failed)` : '');
    batch = [];
    bytes = 0;
  };
  for await (const entry of records) {
    if ('error' in entry) {
      summary.failed++;
      summary.records++;
      done++;
      summary.errors.push({ origin: entry.origin, type: null, id: null, error: entry.error });
      continue;
    }
    if (entry.record.type === 'header' && header === null && done === 0 && batch.length === 0) header = entry;
    batch.push(entry);
    bytes += entry.bytes;
    if (batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  progress.done();
}

function render(summary: Summary): string {
  const counts = (c: ImportCounts) =>
    summary.dryRun
      ? `${c.created} would be created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.failed} failed`
      : `${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.failed} failed`;
  const lines = [`${summary.dryRun ? style.yellow('Dry run, nothing written:') : style.green('Imported')} ${summary.source}: ${counts(summary)}`];
  for (const type of TYPES) {
    const c = summary.byType[type];
    if (c.created + c.updated + c.unchanged + c.failed > 0) lines.push(`  ${type.padEnd(7)} ${counts(c)}`);
  }
  for (const error of summary.errors.slice(0, 20)) {
    lines.push(`  ${style.red(error.origin)}${error.type ? ` (${error.type}${error.id ? ` ${error.id}` : ''})` : ''}: ${error.error}`);
  }
  if (summary.errors.length > 20) lines.push(`  ... and ${summary.errors.length - 20} more errors (--json lists all)`);
  return lines.join('\n');
}

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('Import a mem export (idempotent, keeps ids and times), or notes, JSON items and chats with --from')
    .argument('<source>', 'a mem export (.jsonl, or - for stdin); with --from: a directory of markdown, a JSON file, a chat export')
    .option('--from <format>', 'markdown (a directory of .md files with front matter), json (an array of {content, title, tags, metadata, createdAt}), chat (an array of {role, content, timestamp} messages)')
    .option('--dry-run', 'check every record and report what would change; write nothing')
    .option('--space <spaceId>', 'with --from: the space of the imported memories')
    .option('--tags <tags>', 'with --from: comma-separated tags added to every memory')
    .option('--turbo', 'with --from: store and embed only, no extraction (faster)')
    .addHelpText(
      'after',
      `
A mem export (\`mem export\`) is restored as it was: ids and timestamps are kept, entities, facts and edges
are restored without extraction, vectors are reused when they come from the same embedding model.
Importing the same file again changes nothing (records whose id exists: identical -> unchanged, different ->
updated). --from imports are idempotent too: a memory's id comes from its date, space and text.

Examples:
  $ mem import mem.jsonl
  $ mem import mem.jsonl --dry-run
  $ mem import --from markdown ~/notes --tags notes
  $ mem import --from json items.json --space archive
  $ mem import --from chat chat-export.json`,
    )
    .action(async (source: string, options: ImportOptions, command: Command) => {
      const format = (options.from ?? 'mem') as Format;
      if (!(FORMATS as readonly string[]).includes(format)) {
        throw new MemError('VALIDATION_ERROR', `--from must be one of markdown, json, chat (got "${options.from}").`);
      }
      if (format === 'mem' && (options.space !== undefined || options.tags !== undefined || options.turbo)) {
        throw new MemError('VALIDATION_ERROR', '--space, --tags and --turbo apply to --from imports; a mem export keeps its own.');
      }
      const path = source === '-' ? '-' : resolve(source);
      if (path !== '-' && !(await stat(path).catch(() => null))) throw new MemError('VALIDATION_ERROR', `No such file or directory: ${path}`);
      if (path === '-' && format !== 'mem') throw new MemError('VALIDATION_ERROR', '--from reads a file or directory, not stdin.');
      const { client, output } = await clientFor(command);
      const summary: Summary = {
        success: true,
        dryRun: Boolean(options.dryRun),
        source: path === '-' ? 'standard input' : basename(path),
        records: 0,
        ...emptyCounts(),
        byType: Object.fromEntries(TYPES.map((type) => [type, emptyCounts()])) as Record<RecordType, ImportCounts>,
        errors: [],
      };
      if (format === 'mem') {
        await send(client, exportFile(path), path === '-' ? null : await countLines(path), summary, output);
      } else {
        // The importers (and the markdown parsing they use) load for the format asked for, never to register.
        const read =
          format === 'markdown'
            ? (await import('../importers/markdown.js')).markdownRecords
            : format === 'json'
              ? (await import('../importers/json.js')).jsonRecords
              : (await import('../importers/chat.js')).chatRecords;
        const extraTags = parseList(options.tags) ?? [];
        const records = (await read(path)).map(({ record, origin }) => {
          const tags = Array.isArray(record.tags) ? (record.tags as unknown[]) : [];
          const adjusted: Record<string, unknown> = {
            ...record,
            ...(extraTags.length > 0 ? { tags: [...new Set([...tags, ...extraTags])] } : {}),
            ...(options.space !== undefined && record.spaceId === undefined ? { spaceId: options.space } : {}),
            ...(options.turbo ? { turbo: true } : {}),
          };
          return { record: adjusted, origin, bytes: JSON.stringify(adjusted).length };
        });
        output.info(`Importing ${records.length} ${records.length === 1 ? 'memory' : 'memories'} from ${summary.source}`);
        await send(client, records, records.length, summary, output);
      }
      summary.success = summary.failed === 0;
      output.result(summary, () => render(summary));
      if (summary.failed > 0) process.exitCode = 1;
    });
}
