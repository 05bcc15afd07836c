import { basename, extname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { Memory } from '../../api/contract.js';
import { MemError } from '../../errors.js';
import { confirm } from '../confirm.js';
import { daemonArgument } from '../completion-values.js';
import { clientFor } from '../context.js';
import { parseJsonObject, parseList, parseNumber, readStdin, textArgument } from '../input.js';
import { colorOnStdout, highlighted, shortDate, style, table, terminalWidth, truncate } from '../output.js';

function renderMemory(memory: Memory): string {
  const lines = [
    `${style.bold(memory.title || '(untitled)')}  ${style.dim(memory.id)}`,
    style.dim(
      [
        `created ${shortDate(memory.createdAt)}`,
        memory.updatedAt ? `updated ${shortDate(memory.updatedAt)}` : '',
        memory.author ? `by ${memory.author}` : '',
        memory.spaceId ? `space ${memory.spaceId}` : '',
        memory.tags.length ? `tags ${memory.tags.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' · '),
    ),
  ];
  if (memory.description) lines.push(memory.description);
  if (memory.context) lines.push(style.dim(`context: ${truncate(memory.context.replace(/\s+/g, ' '), 200)}`));
  lines.push('', memory.content);
  if (Object.keys(memory.metadata).length > 0) lines.push('', style.dim(`metadata ${JSON.stringify(memory.metadata)}`));
  return lines.join('\n');
}

/** `mem save <url>` and `mem save --file <path>`: the daemon fetches or extracts the text. */
async function saveSource(content: string | undefined, options: Record<string, string | boolean | undefined>, command: Command): Promise<void> {
  if (options.turbo || options.async) {
    throw new MemError('VALIDATION_ERROR', 'URL and file saves cannot be --turbo or --async.', { hint: 'Drop the flag.' });
  }
  if (options.file !== undefined && content !== undefined) {
    throw new MemError('VALIDATION_ERROR', 'Give either text (or a URL) or --file, not both.');
  }
  for (const flag of ['context', 'author'] as const) {
    if (options[flag] !== undefined) {
      throw new MemError('VALIDATION_ERROR', `--${flag} applies to text saves, not URLs or files.`, { hint: `Drop --${flag}.` });
    }
  }
  const fields = {
    title: options.title as string | undefined,
    description: options.description as string | undefined,
    tags: parseList(options.tags as string | undefined),
    spaceId: options.space as string | undefined,
    metadata: parseJsonObject(options.metadata as string | undefined, '--metadata'),
  };
  let upload: { name: string; type: string; data: Buffer } | undefined;
  if (options.file !== undefined) {
    const path = resolve(String(options.file));
    let data: Buffer;
    try {
      // node:fs/promises only for a file to save: the other commands of the group never read one.
      const { readFile } = await import('node:fs/promises');
      data = await readFile(path);
    } catch (error) {
      throw new MemError('VALIDATION_ERROR', `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }
    upload = { name: basename(path), type: mimeTypeOf(path), data };
  }
  const { client, output } = await clientFor(command);
  const response = upload
    ? await client.saveFile(upload, fields)
    : await client.save({ url: (content as string).trim(), ...fields });
  if (!('documentId' in response)) throw new MemError('INTERNAL_ERROR', 'The daemon answered a URL save with a pending id.');
  output.result(response, () => {
    const verb = response.message.startsWith('Already') ? style.dim('Unchanged') : response.message.includes('updated') ? style.green('Updated') : style.green('Saved');
    return `${verb} ${response.documentId}  ${response.data.title}`;
  });
}

const MIME_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
};

function mimeTypeOf(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** What a search with nothing above its threshold shows instead, at most. */
const NEAREST_SHOWN = 3;

export function registerMemoryCommands(program: Command): void {
  program
    .command('save')
    .description('Save text as a memory (- reads standard input)')
    .argument('[content]', 'the text to save, or - for stdin')
    .option('-t, --title <title>', 'title (default: the first line)')
    .option('--tags <tags>', 'comma-separated tags')
    .option('-d, --description <text>', 'short description or summary')
    .option('-s, --space <spaceId>', 'space (folder) to save into')
    .option('-m, --metadata <json>', 'metadata as a JSON object')
    .option('--context <text>', 'what the text answers or continues (e.g. the message it replies to): indexed with it, not saved as content')
    .option('--author <name>', 'who wrote or said it (e.g. a chat message\'s speaker): searches that name them rank their words first')
    .option('--async', 'return at once with a pending id instead of waiting')
    .option('--turbo', 'fast save: store and embed only, no extraction (prints the processing time)')
    .option('-f, --file <path>', 'upload a file (pdf, html, markdown, text, json): its text is extracted')
    .addHelpText(
      'after',
      `
A URL as the content (http:// or https://) is fetched by the daemon and saved with its readable text,
title and metadata. Saving the same URL or file again updates its memory if the text changed, else nothing.

Examples:
  $ mem save "Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap" --tags work,acme
  $ mem save https://example.org/article --tags reading
  $ mem save --file report.pdf --tags q3
  $ echo "long note" | mem save - --title "From stdin"
  $ mem save "Pay the invoice" -m '{"priority":2}' --space personal --json
  $ mem save "Three times a week" --context "How often do you go to the gym?" --author Priya --space chat
  $ mem save --turbo "quick thought"`,
    )
    .action(async (content: string | undefined, options: Record<string, string | boolean | undefined>, command: Command) => {
      if (options.file !== undefined || (content !== undefined && /^https?:\/\/\S+$/i.test(content.trim()))) {
        await saveSource(content, options, command);
        return;
      }
      const text = content === undefined && !process.stdin.isTTY ? await readStdin() : await textArgument(content, 'content');
      const { client, output } = await clientFor(command);
      if (options.turbo) {
        if (options.async || options.description !== undefined || options.metadata !== undefined) {
          throw new MemError('VALIDATION_ERROR', '--turbo saves content, title, tags, space, context and author only.', {
            hint: 'Drop --async, --description and --metadata, or save without --turbo.',
          });
        }
        const turbo = await client.turboSave({
          content: text,
          title: options.title as string | undefined,
          tags: parseList(options.tags as string | undefined),
          spaceId: options.space as string | undefined,
          context: options.context as string | undefined,
          author: options.author as string | undefined,
        });
        output.result(turbo, () => `${style.green('Saved')} ${turbo.documentId}  ${style.dim(`(turbo, ${turbo.processingTime} ms)`)}`);
        return;
      }
      const response = await client.save({
        content: text,
        title: options.title as string | undefined,
        description: options.description as string | undefined,
        tags: parseList(options.tags as string | undefined),
        spaceId: options.space as string | undefined,
        metadata: parseJsonObject(options.metadata as string | undefined, '--metadata'),
        context: options.context as string | undefined,
        author: options.author as string | undefined,
        async: Boolean(options.async),
      });
      output.result(response, () =>
        'documentId' in response
          ? `${style.green('Saved')} ${response.documentId}  ${style.dim(truncate(response.data.title, 60))}`
          : `${style.green('Accepted')} ${response.pendingId}  ${style.dim(`(mem save-status ${response.pendingId})`)}`,
      );
    });

  program
    .command('save-status')
    .description('Show the state of an async save')
    .argument('<pendingId>', 'id returned by `mem save --async`')
    .addHelpText('after', '\nExamples:\n  $ mem save-status pnd_01JD3V6Q8X4Z5C2B7N9M0K1H2G')
    .action(async (pendingId: string, _options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.saveStatus(pendingId);
      output.result(response, () =>
        [response.status, response.documentId ?? '', response.error ? style.red(response.error) : ''].filter(Boolean).join('  '),
      );
    });

  program
    .command('search')
    .description('Find memories by what they say and what they mean (--semantic: meaning only)')
    .argument('<query...>', 'what to look for, in your own words')
    .option('-n, --limit <n>', 'results to show (max 100)', '10')
    .option('--offset <n>', 'skip this many results', '0')
    .option('--threshold <score>', 'minimum score 0-1', '0.5')
    .option('-s, --space <spaceId>', 'only this space')
    .option('--tags <tags>', 'only memories with any of these tags')
    .option('--after <date>', 'created on or after (ISO 8601)')
    .option('--before <date>', 'created on or before (ISO 8601)')
    .option('--semantic', 'rank by meaning only (cosine similarity), without keyword matching')
    .addOption(new Option('--hybrid', 'words and meaning (the default; kept for scripts)').hideHelp())
    .addHelpText(
      'after',
      `
Scores are 0-1 on one scale for every kind of query: a word a memory contains, a phrase or a
question all score 0.5 or more when the memory answers them. On a terminal, the query's words
are highlighted in each result.

Examples:
  $ mem search "who did I meet about planning?"
  $ mem search roadmap --tags acme --after 2026-01-01
  $ mem search "feeling unwell" --semantic
  $ mem search "invoice" --threshold 0.3 --json | jq '.results[].id'`,
    )
    .action(async (words: string[], options: Record<string, string | boolean | undefined>, command: Command) => {
      const { client, output } = await clientFor(command);
      const request = {
        query: words.join(' '),
        limit: parseNumber(String(options.limit), '--limit'),
        offset: parseNumber(String(options.offset), '--offset'),
        threshold: parseNumber(String(options.threshold), '--threshold'),
        spaceId: options.space as string | undefined,
        tags: parseList(options.tags as string | undefined),
        after: options.after as string | undefined,
        before: options.before as string | undefined,
        hybrid: !options.semantic,
      };
      // The matched words are highlighted only where they can be seen: a colour terminal, not --json.
      const highlight = !output.json && colorOnStdout();
      const response = await client.search(highlight ? { ...request, explain: true } : request);
      // Nothing above the threshold: show the nearest few (humans only, at most --limit), so "nothing" is
      // never a dead end.
      const nearest =
        response.results.length === 0 && !output.json && request.threshold > 0
          ? (await client.search({ ...request, threshold: 0, limit: Math.min(NEAREST_SHOWN, request.limit), offset: 0 })).results
          : [];
      output.result(response, () => {
        const width = terminalWidth();
        if (response.results.length === 0) {
          if (nearest.length === 0) return style.dim('No memories matched.');
          return [
            style.dim(`No memories scored ${request.threshold} or more. Nearest (lower --threshold to include them):`),
            ...nearest.map((result) => `${style.dim(result.score.toFixed(2))}  ${truncate(result.title, width - 40)}  ${style.dim(result.id)}`),
          ].join('\n');
        }
        return response.results
          .map(
            (result) =>
              `${style.cyan(result.score.toFixed(2))}  ${style.bold(truncate(result.title, width - 40))}  ${style.dim(result.id)}\n      ${
                result.author ? `${result.author}: ` : ''
              }${highlighted(result.content, result.explanation?.highlights ?? [], width - 6 - (result.author ? result.author.length + 2 : 0))}${
                result.tags.length ? `\n      ${style.dim(`#${result.tags.join(' #')}`)}` : ''
              }`,
          )
          .join('\n');
      });
    });

  program
    .command('ls')
    .alias('list')
    .description('List memories, newest first')
    .option('-n, --limit <n>', 'how many (max 100)', '20')
    .option('--offset <n>', 'skip this many', '0')
    .option('-s, --space <spaceId>', 'only this space')
    .option('--tags <tags>', 'only memories with any of these tags')
    .option('--after <date>', 'created on or after (ISO 8601)')
    .option('--before <date>', 'created on or before (ISO 8601)')
    .addHelpText('after', '\nExamples:\n  $ mem ls --tags acme\n  $ mem ls --space work --after 2026-01-01 --json')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.listMemories({
        limit: parseNumber(String(options.limit), '--limit'),
        offset: parseNumber(String(options.offset), '--offset'),
        spaceId: options.space,
        tags: parseList(options.tags),
        after: options.after,
        before: options.before,
      });
      output.result(response, () => {
        if (response.data.length === 0) return style.dim('No memories yet. Save one with `mem save "..."`.');
        const width = terminalWidth();
        const rows = response.data.map((memory) => [
          memory.id,
          shortDate(memory.createdAt),
          truncate(memory.title, Math.max(30, width - 72)),
          truncate(memory.tags.join(','), 24),
        ]);
        const { total, offset } = response.pagination;
        return `${table(rows, ['ID', 'CREATED', 'TITLE', 'TAGS'])}\n${style.dim(
          `${offset + 1}-${offset + response.data.length} of ${total}`,
        )}`;
      });
    });

  program
    .command('get')
    .alias('show')
    .description('Show one memory')
    .addArgument(daemonArgument('<id>', 'memory id', 'memories'))
    .addHelpText('after', '\nExamples:\n  $ mem get mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G\n  $ mem get mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G --json')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.getMemory(id);
      output.result(response, () => renderMemory(response.data));
    });

  program
    .command('update')
    .alias('edit')
    .description('Change a memory (new content is re-embedded)')
    .addArgument(daemonArgument('<id>', 'memory id', 'memories'))
    .option('-c, --content <text>', 'new content (- reads stdin)')
    .option('-t, --title <title>', 'new title')
    .option('--tags <tags>', 'replace the tags (comma-separated; "" clears)')
    .option('-d, --description <text>', 'new description')
    .option('-s, --space <spaceId>', 'move to this space')
    .option('-m, --metadata <json>', 'replace the metadata (JSON object)')
    .option('--context <text>', 'new context (see mem save --help; "" removes it)')
    .option('--author <name>', 'new author (see mem save --help; "" removes it)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mem update mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G --tags work,done\n  $ cat note.md | mem update mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G --content -',
    )
    .action(async (id: string, options: Record<string, string | undefined>, command: Command) => {
      const body = {
        ...(options.content !== undefined ? { content: await textArgument(options.content, 'content') } : {}),
        ...(options.title !== undefined ? { title: options.title } : {}),
        ...(options.tags !== undefined ? { tags: parseList(options.tags) ?? [] } : {}),
        ...(options.description !== undefined ? { description: options.description } : {}),
        ...(options.space !== undefined ? { spaceId: options.space } : {}),
        ...(options.metadata !== undefined ? { metadata: parseJsonObject(options.metadata, '--metadata') } : {}),
        ...(options.context !== undefined ? { context: options.context } : {}),
        ...(options.author !== undefined ? { author: options.author } : {}),
      };
      if (Object.keys(body).length === 0) {
        throw new MemError('VALIDATION_ERROR', 'Nothing to change.', { hint: 'Pass --content, --title, --tags, ...' });
      }
      const { client, output } = await clientFor(command);
      const response = await client.updateMemory(id, body);
      output.result(response, () => `${style.green('Updated')} ${response.data.id}`);
    });

  program
    .command('rm')
    .alias('delete')
    .description('Delete memories permanently')
    .addArgument(daemonArgument('[ids...]', 'memory ids', 'memories'))
    .option('--ids <ids>', 'comma-separated memory ids')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  $ mem rm mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G\n  $ mem rm --ids mem_01...,mem_01... --yes')
    .action(async (ids: string[], options: { ids?: string; yes?: boolean }, command: Command) => {
      const all = [...ids, ...(parseList(options.ids) ?? [])];
      if (all.length === 0) throw new MemError('VALIDATION_ERROR', 'No memory ids given.', { hint: 'mem rm <id> [id...]' });
      await confirm(all.length === 1 ? `Delete memory ${all[0]} permanently?` : `Delete ${all.length} memories permanently?`, options);
      const { client, output } = await clientFor(command);
      if (all.length === 1) {
        const response = await client.deleteMemory(all[0] as string);
        output.result(response, () => `${style.green('Deleted')} ${all[0]}`);
        return;
      }
      const response = await client.deleteMemories(all);
      output.result(response, () =>
        [
          `${style.green('Deleted')} ${response.deleted} of ${all.length}`,
          ...response.failed.map((failure) => `${style.red('failed')} ${failure.id}: ${failure.error}`),
        ].join('\n'),
      );
      if (response.failed.length > 0) process.exitCode = 5;
    });
}
