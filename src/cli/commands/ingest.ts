import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { IngestItem, IngestStatusResponse } from '../../api/contract.js';
import type { MemClient } from '../../client/http-client.js';
import { MemError } from '../../errors.js';
import { daemonOption } from '../completion-values.js';
import { clientFor } from '../context.js';
import { parseList } from '../input.js';
import type { Output } from '../output.js';
import { shortDate, style, table } from '../output.js';
import { Progress } from '../progress.js';

/** Files of a directory that `mem ingest DIR` reads as text (other types: `mem save --file` or `mem watch`). */
const TEXT_FILES = new Set(['.md', '.markdown', '.txt', '.text', '.json']);
const POLL_MS = 250;

function parseLines(text: string, origin: string): IngestItem[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new MemError('VALIDATION_ERROR', `${origin} is not a valid JSON array: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed)) throw new MemError('VALIDATION_ERROR', `${origin} must hold a JSON array of items.`);
    return parsed.map((item, index) => asItem(item, `${origin} item ${index}`));
  }
  return trimmed
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), index }))
    .filter(({ line }) => line.length > 0)
    .map(({ line, index }) => {
      try {
        return asItem(JSON.parse(line), `${origin} line ${index + 1}`);
      } catch (error) {
        if (error instanceof MemError) throw error;
        throw new MemError('VALIDATION_ERROR', `${origin} line ${index + 1} is not JSON: ${(error as Error).message}`, {
          hint: 'Each line of a JSONL file is one item: {"content": "...", "title": "...", "tags": [...]} or {"url": "..."}.',
        });
      }
    });
}

function asItem(value: unknown, where: string): IngestItem {
  if (typeof value === 'string') return { content: value };
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new MemError('VALIDATION_ERROR', `${where} must be an object or a string.`);
  return value as IngestItem;
}

async function itemsFrom(source: string): Promise<IngestItem[]> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return parseLines(Buffer.concat(chunks).toString('utf8'), 'standard input');
  }
  const path = resolve(source);
  const info = await stat(path).catch(() => null);
  if (!info) throw new MemError('VALIDATION_ERROR', `No such file or directory: ${path}`);
  if (!info.isDirectory()) return parseLines(await readFile(path, 'utf8'), basename(path));
  const items: IngestItem[] = [];
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.startsWith('.') || !TEXT_FILES.has(extname(entry.name).toLowerCase())) continue;
    const file = join(entry.parentPath, entry.name);
    const content = await readFile(file, 'utf8');
    if (!content.trim()) continue;
    items.push({ content, title: basename(entry.name, extname(entry.name)), metadata: { filename: entry.name, sourcePath: file } });
  }
  if (items.length === 0) throw new MemError('VALIDATION_ERROR', `No text files (${[...TEXT_FILES].join(', ')}) in ${path}.`);
  return items;
}

function renderStatus(status: IngestStatusResponse): string {
  const lines = [
    `${style.bold(status.jobId)}  ${status.status}  ${status.progress.completed + status.progress.failed}/${status.progress.total} (${status.progress.percentage}%), ${status.progress.failed} failed`,
    `  created ${shortDate(status.createdAt)}${status.startedAt ? `, started ${shortDate(status.startedAt)}` : ''}${status.completedAt ? `, finished ${shortDate(status.completedAt)}` : ''}`,
  ];
  for (const error of status.errors.slice(0, 20)) lines.push(`  ${style.red('item ' + error.index)}: ${error.error}`);
  if (status.errors.length > 20) lines.push(`  ... and ${status.errors.length - 20} more errors (--json lists all)`);
  if (status.webhook) {
    const state = status.webhook.delivered === true ? 'delivered' : status.webhook.delivered === false ? 'not delivered' : 'pending';
    lines.push(`  webhook ${status.webhook.url}: ${state}`);
    for (const attempt of status.webhook.attempts) {
      lines.push(`    attempt ${attempt.attempt} at ${shortDate(attempt.at)}: ${attempt.status ?? attempt.error ?? 'failed'} (${attempt.durationMs} ms)`);
    }
  }
  return lines.join('\n');
}

async function waitForJob(client: MemClient, jobId: string, output: Output): Promise<IngestStatusResponse> {
  const progress = new Progress('ingest', !output.json && !output.options.quiet);
  for (;;) {
    const status = await client.ingestStatus(jobId);
    const done = status.progress.completed + status.progress.failed;
    progress.update(done, status.progress.total, status.progress.failed > 0 ? `(${status.progress.failed} failed)` : status.status === 'pending' ? '(waiting for a free job slot)' : '');
    if (status.status === 'completed' || status.status === 'failed') {
      progress.done();
      return status;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, POLL_MS));
  }
}

export function registerIngestCommands(program: Command): void {
  program
    .command('ingest')
    .description('Bulk-ingest a JSONL file, a JSON array, a directory of text files, or stdin (-)')
    .argument('[source]', 'FILE (.jsonl or JSON array), DIRECTORY, or - for stdin')
    .addOption(daemonOption('--status <jobId>', 'show the status of an ingest job instead', 'jobs'))
    .option('--webhook <url>', 'URL that receives a signed POST when the job finishes')
    .option('--tags <tags>', 'comma-separated tags added to every item')
    .option('--space <spaceId>', 'space for items that name none')
    .option('--turbo', 'store and embed only, no extraction (faster)')
    .option('--sync', 'process every item before answering (no job)')
    .option('--no-wait', 'print the job id and return at once')
    .addHelpText(
      'after',
      `
Each JSONL line (or array element) is an item: {"content": "...", "title": "...", "tags": [...], "metadata": {...}}
or {"url": "https://..."}. A directory contributes its .md, .markdown, .txt, .text and .json files.

Examples:
  $ mem ingest notes.jsonl --webhook http://127.0.0.1:9000/hook
  $ cat items.json | mem ingest - --tags imported
  $ mem ingest ~/notes --no-wait
  $ mem ingest --status job_01JD3V6Q8X4Z5C2B7N9M0K1H2G`,
    )
    .action(async (source: string | undefined, options: Record<string, string | boolean | undefined>, command: Command) => {
      if (typeof options.status === 'string') {
        const { client, output } = await clientFor(command);
        const status = await client.ingestStatus(options.status);
        output.result(status, () => renderStatus(status));
        return;
      }
      if (source === undefined) throw new MemError('VALIDATION_ERROR', 'Missing the file, directory or - to ingest.', { hint: 'mem ingest notes.jsonl' });
      const extraTags = parseList(options.tags as string | undefined) ?? [];
      const items = (await itemsFrom(source)).map((item) => ({
        ...item,
        ...(extraTags.length > 0 ? { tags: [...new Set([...(item.tags ?? []), ...extraTags])] } : {}),
        ...(options.space !== undefined && item.spaceId === undefined ? { spaceId: String(options.space) } : {}),
      }));
      const { client, output } = await clientFor(command);
      const common = { items, turbo: Boolean(options.turbo), ...(options.webhook ? { webhook: String(options.webhook) } : {}) };
      if (options.sync) {
        const response = await client.ingest({ ...common, async: false });
        const failed = response.results.filter((result) => !result.success);
        output.result(response, () =>
          [`${style.green('Ingested')} ${response.processed - failed.length} of ${response.processed} items`, ...failed.map((f) => `  ${style.red('item ' + f.index)}: ${f.error}`)].join('\n'),
        );
        if (failed.length > 0) process.exitCode = 1;
        return;
      }
      const accepted = await client.ingest({ ...common, async: true });
      if (options.wait === false) {
        output.result(accepted, () => `${accepted.jobId}\n${style.dim(`Follow it with: mem ingest --status ${accepted.jobId}`)}`);
        return;
      }
      output.info(`Ingesting ${accepted.itemCount} items as job ${accepted.jobId}`);
      const status = await waitForJob(client, accepted.jobId, output);
      output.result(status, () => renderStatus(status));
      if (status.status === 'failed' || status.progress.failed > 0) process.exitCode = 1;
    });

  program
    .command('jobs')
    .description('List recent background jobs (ingest, reindex)')
    .option('--limit <n>', 'how many (1-100)', '20')
    .addHelpText('after', '\nExamples:\n  $ mem jobs\n  $ mem jobs --json')
    .action(async (options: { limit: string }, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.listJobs(Number(options.limit));
      output.result(response.jobs, () =>
        response.jobs.length === 0
          ? 'No jobs yet.'
          : table(
              response.jobs.map((job) => [
                job.jobId,
                job.kind,
                job.status,
                `${job.progress.completed + job.progress.failed}/${job.progress.total}`,
                String(job.progress.failed),
                job.startedAt ? shortDate(job.startedAt) : '-',
                job.completedAt ? shortDate(job.completedAt) : '-',
              ]),
              ['JOB', 'KIND', 'STATUS', 'DONE', 'FAILED', 'STARTED', 'FINISHED'],
            ),
      );
    });

  const webhooks = program
    .command('webhooks')
    .description('Webhook settings of your account')
    .addHelpText('after', '\nExamples:\n  $ mem webhooks secret\n  $ mem ingest notes.jsonl --webhook http://127.0.0.1:9000/hook');
  webhooks
    .command('secret')
    .description('Print the secret that signs webhook deliveries (X-Mem-Signature)')
    .addHelpText('after', '\nExamples:\n  $ export MEM_WEBHOOK_SECRET=$(mem webhooks secret)')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.webhookSecret();
      output.result(response, () => response.secret);
    });
}
