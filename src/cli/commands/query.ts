import type { Command } from 'commander';
import type { QueryBody, QueryResponse, QueryResult } from '../../api/contract.js';
import { HISTOGRAM_FIELDS, HISTOGRAM_INTERVALS } from '../../api/vocabulary.js';
import { MemError } from '../../errors.js';
import { clientFor } from '../context.js';
import { parseJsonObject, parseList, parseNumber } from '../input.js';
import { shortDate, style, table, terminalWidth, truncate } from '../output.js';

type HistogramField = (typeof HISTOGRAM_FIELDS)[number];
type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];

const HEADERS: Record<string, string> = {
  id: 'ID',
  title: 'TITLE',
  content: 'CONTENT',
  description: 'DESCRIPTION',
  tags: 'TAGS',
  metadata: 'METADATA',
  spaceId: 'SPACE',
  createdAt: 'CREATED',
  updatedAt: 'UPDATED',
  score: 'SCORE',
};

/** Widest a free-text column may get; the last column takes what the terminal has left. */
const TEXT_WIDTH: Record<string, number> = { title: 50, content: 60, description: 40, metadata: 40, tags: 30 };

function parseSortOption(value: string | undefined): Record<string, 1 | -1> | undefined {
  const sort = parseJsonObject(value, '--sort');
  if (!sort) return undefined;
  const entries = Object.entries(sort);
  for (const [field, direction] of entries) {
    if (direction !== 1 && direction !== -1) {
      throw new MemError('VALIDATION_ERROR', `--sort: ${field} must be 1 (ascending) or -1 (descending).`, {
        hint: `e.g. --sort '{"createdAt":-1}'`,
      });
    }
  }
  return Object.fromEntries(entries) as Record<string, 1 | -1>;
}

function parseHistogram(value: string | undefined): { field: HistogramField; interval: HistogramInterval } | undefined {
  if (value === undefined) return undefined;
  const [field = '', interval = '', ...rest] = value.split(':');
  const fieldOk = (HISTOGRAM_FIELDS as readonly string[]).includes(field);
  const intervalOk = (HISTOGRAM_INTERVALS as readonly string[]).includes(interval);
  if (!fieldOk || !intervalOk || rest.length > 0) {
    throw new MemError(
      'VALIDATION_ERROR',
      `--histogram must be <field>:<interval> with field ${HISTOGRAM_FIELDS.join('|')} and interval ${HISTOGRAM_INTERVALS.join('|')} (got "${value}").`,
      { hint: 'e.g. --histogram createdAt:week' },
    );
  }
  return { field: field as HistogramField, interval: interval as HistogramInterval };
}

function cell(result: QueryResult, field: string): string {
  const value = (result as Record<string, unknown>)[field];
  if (value === undefined || value === null) return '';
  if (field === 'createdAt' || field === 'updatedAt') return shortDate(String(value));
  if (field === 'score' && typeof value === 'number') return value.toFixed(2);
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function bar(count: number, max: number, width = 30): string {
  return '█'.repeat(Math.max(1, Math.round((count / Math.max(1, max)) * width)));
}

function renderAggregations(aggregations: NonNullable<QueryResponse['aggregations']>, histogramField: string | undefined): string[] {
  const sections: string[] = [];
  if (aggregations.countByTag) {
    const rows = Object.entries(aggregations.countByTag).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
    const max = Math.max(0, ...rows.map(([, count]) => count));
    sections.push(
      rows.length === 0
        ? style.dim('No tags among the matches.')
        : table(rows.slice(0, 50).map(([tag, count]) => [tag, String(count), style.cyan(bar(count, max))]), ['TAG', 'COUNT', '']) +
            (rows.length > 50 ? `\n${style.dim(`... and ${rows.length - 50} more tags (--json lists all)`)}` : ''),
    );
  }
  if (aggregations.dateHistogram) {
    const buckets = aggregations.dateHistogram;
    const max = Math.max(0, ...buckets.map((bucket) => bucket.count));
    const title = (histogramField === 'updatedAt' ? 'UPDATED' : 'CREATED') + ' FROM';
    sections.push(
      buckets.length === 0
        ? style.dim('No dates among the matches.')
        : table(buckets.map((bucket) => [bucket.date, String(bucket.count), style.cyan(bar(bucket.count, max))]), [title, 'COUNT', '']),
    );
  }
  return sections;
}

function render(response: QueryResponse, columns: readonly string[], histogramField: string | undefined): string {
  const width = terminalWidth();
  const { total, offset } = response.pagination;
  const lines: string[] = [];
  if (response.results.length === 0) {
    lines.push(style.dim(total > 0 ? `No results at offset ${offset} (${total} matches).` : 'No memories matched.'));
  } else {
    const rows = response.results.map((result) =>
      columns.map((field, index) => {
        const text = cell(result, field);
        const limit = index === columns.length - 1 ? Math.max(20, width - 60) : TEXT_WIDTH[field];
        return limit === undefined ? text : truncate(text, limit);
      }),
    );
    lines.push(table(rows, columns.map((field) => HEADERS[field] ?? field.toUpperCase())));
    lines.push(style.dim(`${offset + 1}-${offset + response.results.length} of ${total}`));
  }
  if (response.aggregations) {
    for (const section of renderAggregations(response.aggregations, histogramField)) lines.push('', section);
  }
  return lines.join('\n');
}

export function registerQueryCommand(program: Command): void {
  program
    .command('query')
    .description('Filter, sort and aggregate memories with the structured query language (text ranks by relevance)')
    .argument('[text...]', 'optional text: rank the matches by relevance to it (hybrid scoring, as search)')
    .option('-f, --filter <json>', 'filter as JSON: field -> value or {$eq,$ne,$gt,$gte,$lt,$lte,$in,$nin}; $and/$or')
    .option('--sort <json>', 'sort as JSON: field -> 1 or -1, in order (default: relevance with text, else newest first)')
    .option('--fields <fields>', 'comma-separated fields to return: id,title,content,description,tags,metadata,spaceId,createdAt,updatedAt')
    .option('-n, --limit <n>', 'results per page (max 100)', '20')
    .option('--offset <n>', 'skip this many results', '0')
    .option('--count-by-tag', 'count the matching memories per tag (over every match, not the page)')
    .option('--histogram <field:interval>', 'matching memories per day|week|month|year of createdAt|updatedAt')
    .option('--threshold <score>', 'with text: minimum relevance 0-1', '0.5')
    .addHelpText(
      'after',
      `
Fields: id, title, content, description, tags, spaceId, createdAt, updatedAt, metadata.<dotted.path>.
tags is a list: $eq/$in match when it contains the value(s), $ne/$nin when it does not. A date without a
time (2025-01-31) means that whole day.

Examples:
  $ mem query --filter '{"$and":[{"tags":{"$in":["acme"]}},{"metadata.status":{"$ne":"done"}}]}' \\
              --sort '{"createdAt":-1}' --fields id,title,tags --limit 20
  $ mem query "roadmap" --filter '{"metadata.priority":{"$gte":2}}' --count-by-tag --histogram createdAt:week
  $ mem query --filter '{"createdAt":{"$gte":"2025-01-01"}}' --sort '{"metadata.priority":-1}' --json`,
    )
    .action(async (words: string[], options: Record<string, string | boolean | undefined>, command: Command) => {
      const text = words.join(' ').trim();
      const fields = parseList(options.fields as string | undefined);
      const histogram = parseHistogram(options.histogram as string | undefined);
      const body: QueryBody = {
        ...(text ? { query: text, threshold: parseNumber(String(options.threshold), '--threshold') } : {}),
        ...(options.filter !== undefined ? { filters: parseJsonObject(options.filter as string, '--filter') } : {}),
        ...(options.sort !== undefined ? { sort: parseSortOption(options.sort as string) } : {}),
        ...(fields ? { fields } : {}),
        limit: parseNumber(String(options.limit), '--limit'),
        offset: parseNumber(String(options.offset), '--offset'),
        ...(options.countByTag || histogram
          ? { aggregate: { ...(options.countByTag ? { countByTag: true } : {}), ...(histogram ? { dateHistogram: histogram } : {}) } }
          : {}),
      };
      const { client, output } = await clientFor(command);
      const response = await client.query(body);
      const columns = [
        ...(text ? ['score'] : []),
        ...(fields ? ['id', ...fields.filter((field) => field !== 'id' && field !== 'score')] : ['id', 'createdAt', 'title', 'tags']),
      ];
      output.result(response, () => render(response, columns, histogram?.field));
    });
}
