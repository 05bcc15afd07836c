import type { Extraction } from './extraction.js';
import { normaliseDate, normaliseNewlines, oneLine } from './text.js';

/**
 * Markdown and plain text are kept as written (newlines normalised, trimmed). Markdown's title is the front
 * matter's `title:` or else the first level-one heading (`# Title` or a `===` underline); the front matter
 * block is taken out of the text and its simple `key: value` pairs go to metadata.frontMatter.
 */

export type FrontMatter = Record<string, string | string[]>;

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

function unquote(value: string): string {
  const match = /^(["'])([\s\S]*)\1$/.exec(value);
  return match?.[2] ?? value;
}

/**
 * The YAML subset notes use: `key: value`, `key: "quoted"`, `key: [a, b]`, and `key:` followed by `- item`
 * lines. Anything else (nested maps, multi-line scalars) is left out rather than guessed at.
 */
export function parseFrontMatter(block: string): FrontMatter {
  const result: FrontMatter = {};
  let listKey: string | null = null;
  for (const line of block.split('\n')) {
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      const list = result[listKey];
      const value = unquote((item[1] ?? '').trim());
      if (Array.isArray(list)) list.push(value);
      else result[listKey] = [value];
      continue;
    }
    const pair = /^([A-Za-z_][\w.-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair?.[1]) {
      listKey = null;
      continue;
    }
    const key = pair[1];
    const raw = (pair[2] ?? '').replace(/\s+#.*$/, '').trim();
    listKey = raw === '' ? key : null;
    if (raw === '') continue;
    const inline = /^\[(.*)\]$/.exec(raw);
    result[key] = inline
      ? (inline[1] ?? '').split(',').map((part) => unquote(part.trim())).filter((part) => part !== '')
      : unquote(raw);
  }
  return result;
}

/** The first level-one heading outside fenced code: ATX (`# Title`) or setext (`Title` over `===`). */
export function firstHeading(markdown: string): string | null {
  const lines = markdown.split('\n');
  let fenced = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (/^\s{0,3}(?:```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const atx = /^\s{0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (atx?.[1]) return oneLine(atx[1]);
    const next = lines[index + 1] ?? '';
    if (line.trim() !== '' && /^\s{0,3}=+\s*$/.test(next)) return oneLine(line);
  }
  return null;
}

export function extractMarkdown(source: string): Extraction {
  const normalised = normaliseNewlines(source);
  const match = FRONT_MATTER.exec(normalised);
  const frontMatter = match ? parseFrontMatter(match[1] ?? '') : null;
  const text = match ? normaliseNewlines(normalised.slice(match[0].length)) : normalised;
  const declared = frontMatter?.['title'];
  const title = (typeof declared === 'string' ? oneLine(declared) : null) ?? firstHeading(text);
  const author = frontMatter?.['author'];
  const date = frontMatter?.['date'];
  const publishedAt = typeof date === 'string' ? normaliseDate(date) : null;
  return {
    text,
    title,
    metadata: {
      ...(frontMatter && Object.keys(frontMatter).length > 0 ? { frontMatter } : {}),
      ...(typeof author === 'string' ? { author } : {}),
      ...(publishedAt ? { publishedAt } : {}),
    },
  };
}

export function extractPlainText(source: string): Extraction {
  return { text: normaliseNewlines(source), title: null, metadata: {} };
}
