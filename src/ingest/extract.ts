import { MemError, type ErrorCode } from '../errors.js';
import {
  decodeText,
  detectType,
  formatFromMimeType,
  parseContentType,
  SUPPORTED_FORMATS_TEXT,
  type DetectedType,
  type DocumentFormat,
} from './content-type.js';
import { declaredCharset, extractHtml } from './extract-html.js';
import { extractJson } from './extract-json.js';
import { extractMarkdown, extractPlainText, type FrontMatter } from './extract-markdown.js';
import { extractPdf } from './extract-pdf.js';
import type { Extraction } from './extraction.js';
import { fetchUrl, type FetchPolicy } from './fetch-url.js';
import { truncateText } from './text.js';

/**
 * One entry point per source: a buffer (upload, watched file) or a URL. Both detect the format, run its
 * extractor and return readable plain text, a title and metadata. Uploads fail with VALIDATION_ERROR, URLs
 * with INVALID_URL (the spec's code for "content cannot be fetched from url"); `details.reason` says which
 * failure for programs: unsupported-type, invalid-content, empty-text, or a FetchFailure.
 */

export interface ExtractedMetadata {
  readonly format: DocumentFormat;
  /** The media type the body was read as (the header's when it named one). */
  readonly mimeType: string;
  /** Bytes of the body as received (after content decoding). */
  readonly sizeBytes: number;
  /** The URL the body came from, after redirects. */
  readonly sourceUrl?: string;
  /** The URL asked for, when redirects led elsewhere. */
  readonly requestedUrl?: string;
  readonly filename?: string;
  readonly description?: string;
  readonly author?: string;
  /** ISO 8601 when the source's date parses, else as written. */
  readonly publishedAt?: string;
  readonly siteName?: string;
  readonly canonicalUrl?: string;
  readonly lang?: string;
  /** PDF only. */
  readonly pageCount?: number;
  readonly keywords?: string;
  /** Markdown only: the front matter's simple key: value pairs. */
  readonly frontMatter?: FrontMatter;
  /** Present (true) when the text was cut at `maxChars`. */
  readonly truncated?: true;
  /** Length of the text before truncation, when truncated. */
  readonly originalChars?: number;
}

export interface ExtractedDocument {
  /** Readable plain text (HTML is converted, with paragraph breaks); never empty. */
  readonly text: string;
  readonly title: string | null;
  readonly metadata: ExtractedMetadata;
}

export interface ExtractOptions {
  /** The upload's or file's name: its extension helps when the type is generic, and it goes to metadata. */
  readonly filename?: string;
  /** Where the body came from: resolves relative links (canonical URL) and goes to metadata.sourceUrl. */
  readonly url?: string;
  /**
   * Cut the text at this many characters (metadata.truncated, originalChars record it). Left out: no cut, and
   * the caller applies its content limit (the API refuses saves over 100 KB with CONTENT_TOO_LARGE).
   */
  readonly maxChars?: number;
}

interface Failure {
  readonly code: ErrorCode;
  /** How the message names the source: `"report.pdf"`, `the upload`, or the URL. */
  readonly subject: string;
  readonly details: Record<string, unknown>;
}

function failure(on: Failure, reason: string, message: string): MemError {
  return new MemError(on.code, message, { details: { reason, ...on.details } });
}

function unsupportedMessage(on: Failure, contentType: string): string {
  const type = parseContentType(contentType).mimeType || 'of unknown type';
  return `unsupported content type ${type} ${on.code === 'INVALID_URL' ? 'from' : 'for'} ${on.subject} (supported: ${SUPPORTED_FORMATS_TEXT})`;
}

/**
 * Reads `body` as the document `contentType` (and then `options.filename`, then the bytes) say it is.
 * Throws VALIDATION_ERROR for an unsupported type, unreadable content (invalid JSON, a broken PDF) or no text.
 * Size limits are the caller's: it knows which one applies (CONTENT_TOO_LARGE for uploads).
 */
export async function extractDocument(body: Buffer, contentType: string, options: ExtractOptions = {}): Promise<ExtractedDocument> {
  const subject = options.filename ? `"${options.filename}"` : 'the upload';
  return extractWith(body, contentType, options, {
    code: 'VALIDATION_ERROR',
    subject,
    details: options.filename ? { filename: options.filename } : {},
  });
}

/**
 * Fetches `url` under `policy` (see fetchUrl for the limits) and extracts it. Every failure, the fetch's and
 * the extraction's, is INVALID_URL. A Content-Type we cannot read is refused before the body is downloaded.
 * An abort of `options.signal` rejects with the signal's reason.
 */
export async function extractFromUrl(
  url: string,
  policy: FetchPolicy,
  options: { readonly signal?: AbortSignal; readonly maxChars?: number } = {},
): Promise<ExtractedDocument> {
  const fetched = await fetchUrl(url, policy, {
    ...(options.signal ? { signal: options.signal } : {}),
    acceptContentType: (contentType, from) => {
      if (formatFromMimeType(parseContentType(contentType).mimeType) === null) {
        const on: Failure = { code: 'INVALID_URL', subject: from, details: { url: from, contentType } };
        throw failure(on, 'unsupported-type', unsupportedMessage(on, contentType));
      }
    },
  });
  const document = await extractWith(
    fetched.body,
    fetched.contentType,
    { url: fetched.finalUrl, ...(options.maxChars !== undefined ? { maxChars: options.maxChars } : {}) },
    { code: 'INVALID_URL', subject: fetched.finalUrl, details: { url: fetched.finalUrl } },
  );
  if (fetched.finalUrl === url) return document;
  return { ...document, metadata: { ...document.metadata, requestedUrl: url } };
}

async function extractWith(body: Buffer, contentType: string, options: ExtractOptions, on: Failure): Promise<ExtractedDocument> {
  const detected = detectType(body, contentType, options.filename ?? options.url);
  if (!detected) throw failure(on, 'unsupported-type', unsupportedMessage(on, contentType));
  const extraction = await runExtractor(body, detected, options, on);
  if (extraction.text.trim() === '') {
    const scanned = detected.format === 'pdf' ? ' (a scanned PDF without a text layer?)' : '';
    throw failure(on, 'empty-text', `no text could be extracted from ${on.subject} (${detected.mimeType})${scanned}`);
  }
  const cut = options.maxChars !== undefined ? truncateText(extraction.text, options.maxChars) : { text: extraction.text, truncated: false };
  const metadata = {
    ...withoutEmpty(extraction.metadata),
    format: detected.format,
    mimeType: detected.mimeType,
    sizeBytes: body.byteLength,
    ...(options.url ? { sourceUrl: options.url } : {}),
    ...(options.filename ? { filename: options.filename } : {}),
    ...(cut.truncated ? { truncated: true as const, originalChars: extraction.text.length } : {}),
  } as ExtractedMetadata;
  return { text: cut.text, title: extraction.title, metadata };
}

async function runExtractor(body: Buffer, detected: DetectedType, options: ExtractOptions, on: Failure): Promise<Extraction> {
  switch (detected.format) {
    case 'pdf':
      try {
        return await extractPdf(body);
      } catch (error) {
        throw failure(on, 'invalid-content', `${on.subject} is not a readable PDF: ${error instanceof Error ? error.message : String(error)}`);
      }
    case 'html': {
      const charset = detected.charset ?? declaredCharset(body.subarray(0, 1024).toString('latin1'));
      return extractHtml(decodeText(body, charset), options.url);
    }
    case 'json':
      try {
        return extractJson(decodeText(body, detected.charset));
      } catch (error) {
        throw failure(on, 'invalid-content', `${on.subject} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
    case 'markdown':
      return extractMarkdown(decodeText(body, detected.charset));
    case 'text':
      return extractPlainText(decodeText(body, detected.charset));
  }
}

function withoutEmpty(metadata: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null && value !== undefined && value !== ''));
}
