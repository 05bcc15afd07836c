import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { extractMarkdown } from '../../ingest/extract-markdown.js';
import { MemError } from '../../errors.js';
import { isoTime, type SourcedRecord } from './record.js';

const MARKDOWN = new Set(['.md', '.markdown']);
/** Front matter keys that become fields of the memory; every other key goes to its metadata. */
const DATE_KEYS = ['created', 'createdAt', 'created_at', 'date'];

/**
 * `mem import --from markdown DIR`: every .md/.markdown file below DIR (hidden ones skipped) becomes a memory.
 * Front matter: `title` (else the first heading, else the file name), `tags` (a list or comma-separated),
 * `created`/`createdAt`/`date` -> createdAt (else the file's modification time), every other key -> metadata,
 * next to `file` (the path below DIR). The text is the file without its front matter.
 */
export async function markdownRecords(dir: string): Promise<SourcedRecord[]> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new MemError('VALIDATION_ERROR', `${dir} is not a directory.`, { hint: 'mem import --from markdown ~/notes' });
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && MARKDOWN.has(extname(entry.name).toLowerCase()))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).split(sep).some((part) => part.startsWith('.')))
    .sort();
  const records: SourcedRecord[] = [];
  for (const path of files) {
    const file = relative(dir, path).split(sep).join('/');
    const extracted = extractMarkdown(await readFile(path, 'utf8'));
    const content = extracted.text.trim();
    if (!content) continue;
    const front = (extracted.metadata.frontMatter ?? {}) as Record<string, string | string[]>;
    const declared = DATE_KEYS.map((key) => front[key]).find((value): value is string => typeof value === 'string');
    const createdAt = isoTime(declared) ?? new Date((await stat(path)).mtimeMs).toISOString();
    const tags = front.tags;
    const metadata: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(front)) if (key !== 'title' && key !== 'tags' && !(DATE_KEYS.includes(key) && isoTime(value))) metadata[key] = value;
    metadata.file = file;
    records.push({
      record: {
        type: 'memory',
        content,
        title: extracted.title ?? basename(file).replace(/\.(md|markdown)$/i, ''),
        tags: (Array.isArray(tags) ? tags : typeof tags === 'string' ? tags.split(',') : []).map((tag) => tag.trim()).filter(Boolean),
        metadata,
        createdAt,
      },
      origin: file,
    });
  }
  if (records.length === 0) throw new MemError('VALIDATION_ERROR', `No markdown files with text in ${dir}.`);
  return records;
}
