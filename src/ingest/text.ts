/** Text clean-up shared by the extractors. */

/** CRLF and CR to LF, no BOM, no NUL, trimmed. Blank lines and indentation stay (Markdown needs them). */
export function normaliseNewlines(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/\u0000/g, '').trim();
}

/** For text that came out of a layout (HTML, PDF): no trailing spaces, at most one blank line in a row. */
export function tidyText(text: string): string {
  return normaliseNewlines(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+$/u, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/** One line: runs of whitespace become one space. */
export function oneLine(text: string | null | undefined): string | null {
  const value = text?.replace(/\s+/g, ' ').trim();
  return value ? value : null;
}

export interface Truncation {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * Cuts `text` to at most `maxChars` UTF-16 units, at a paragraph or word break in the last fifth when there is
 * one, never inside a surrogate pair.
 */
export function truncateText(text: string, maxChars: number): Truncation {
  if (text.length <= maxChars) return { text, truncated: false };
  let cut = maxChars;
  const start = Math.floor(maxChars * 0.8);
  // Up to and including the character at maxChars: a break right there still counts.
  const window = text.slice(start, maxChars + 1);
  const paragraph = window.lastIndexOf('\n\n');
  const at = paragraph >= 0 ? paragraph : window.search(/\s\S*$/);
  if (at >= 0 && start + at > 0) cut = start + at;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return { text: text.slice(0, cut).trimEnd(), truncated: true };
}

/**
 * A date as ISO 8601: a full timestamp when the value parses ("March 5, 2024", RFC 2822, ISO with an offset),
 * a plain YYYY-MM-DD left as it is (a day has no time zone), anything else as written.
 */
export function normaliseDate(value: string | null | undefined): string | null {
  const text = oneLine(value);
  if (!text) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const time = Date.parse(text);
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}
