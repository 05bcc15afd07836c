import { TextDecoder } from 'node:util';

/**
 * Deciding what a body is: the Content-Type header first, then the file name's extension (or the URL path's),
 * then sniffing the bytes, the last two only when the header says nothing specific (absent or
 * application/octet-stream). A specific unsupported type (image/png) is refused even if the name says .html:
 * the server or uploader said what it sent.
 */

export type DocumentFormat = 'html' | 'markdown' | 'text' | 'json' | 'pdf';

export const SUPPORTED_FORMATS_TEXT = 'HTML, Markdown, plain text, JSON, PDF';

export interface MediaType {
  /** Lower-case type/subtype without parameters ('' when absent). */
  readonly mimeType: string;
  readonly charset: string | null;
}

export function parseContentType(header: string): MediaType {
  const [type = '', ...parameters] = header.split(';');
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  return { mimeType: type.trim().toLowerCase(), charset: charset?.toLowerCase() ?? null };
}

const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/x-download']);

const MIME_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/json': 'json',
  'text/json': 'json',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
};

const EXTENSION_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  md: 'markdown',
  markdown: 'markdown',
  mdown: 'markdown',
  mkd: 'markdown',
  txt: 'text',
  text: 'text',
  log: 'text',
  csv: 'text',
  tsv: 'text',
  json: 'json',
  pdf: 'pdf',
};

/** A header's verdict: a format, 'generic' (look further), or null (a type we do not read). */
export function formatFromMimeType(mimeType: string): DocumentFormat | 'generic' | null {
  if (GENERIC_TYPES.has(mimeType)) return 'generic';
  const known = MIME_FORMATS[mimeType];
  if (known) return known;
  if (/^application\/[\w.+-]+\+json$/.test(mimeType)) return 'json';
  if (mimeType.startsWith('text/')) return 'text';
  return null;
}

/** The extension of a file name or of a URL's path ('' when none). */
export function extensionOf(name: string): string {
  let path = name;
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) path = decodeURIComponent(new URL(name).pathname);
  } catch {
    // not a URL after all: use it as a name
  }
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

export function formatFromName(name: string | undefined): DocumentFormat | null {
  return name ? (EXTENSION_FORMATS[extensionOf(name)] ?? null) : null;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** What the bytes look like: PDF magic, an HTML start, JSON that parses, or UTF-8 text without NUL bytes. */
export function sniffFormat(body: Buffer): DocumentFormat | null {
  if (body.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  let text: string;
  try {
    text = utf8Strict.decode(body);
  } catch {
    return null;
  }
  if (text.includes('\u0000')) return null;
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>])/i.test(start)) return 'html';
  return /^[[{]/.test(start) && parsesAsJson(start) ? 'json' : 'text';
}

function parsesAsJson(body: Buffer | string): boolean {
  try {
    JSON.parse(typeof body === 'string' ? body : decodeText(body, null));
    return true;
  } catch {
    return false;
  }
}

/** Decodes with the declared charset, falling back to UTF-8 for labels the runtime does not know. */
export function decodeText(body: Buffer, charset: string | null): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}

export interface DetectedType {
  readonly format: DocumentFormat;
  /** The type recorded in metadata: the header's, else the one the format implies. */
  readonly mimeType: string;
  readonly charset: string | null;
}

const FORMAT_MIME: Readonly<Record<DocumentFormat, string>> = {
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  json: 'application/json',
  pdf: 'application/pdf',
};

/**
 * The format of `body`, or null when it is not one we read. `name` is a file name or the URL it came from.
 * text/plain named *.md or *.json is read as Markdown or JSON: static hosts serve both as text/plain.
 */
export function detectType(body: Buffer, contentType: string, name?: string): DetectedType | null {
  const media = parseContentType(contentType);
  const fromHeader = formatFromMimeType(media.mimeType);
  if (fromHeader === null) return null;
  if (fromHeader === 'generic') {
    const format = formatFromName(name) ?? sniffFormat(body);
    return format ? { format, mimeType: FORMAT_MIME[format], charset: media.charset } : null;
  }
  if (media.mimeType === 'text/plain') {
    const refined = formatFromName(name);
    if (refined === 'markdown' || (refined === 'json' && parsesAsJson(body))) {
      return { format: refined, mimeType: media.mimeType, charset: media.charset };
    }
  }
  return { format: fromHeader, mimeType: media.mimeType, charset: media.charset };
}
