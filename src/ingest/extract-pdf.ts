import type { Extraction } from './extraction.js';
import { oneLine, tidyText } from './text.js';

/**
 * PDF text layers through unpdf (a serverless build of Mozilla's PDF.js). Scanned PDFs without a text layer
 * give empty text, which the caller reports. unpdf is imported on first use: PDF.js is 1.6 MB of code that a
 * daemon which never sees a PDF should not load.
 */

type PromiseWithTry = PromiseConstructor & { try?: (fn: (...args: unknown[]) => unknown, ...args: unknown[]) => Promise<unknown> };

/**
 * PDF.js 5 calls Promise.try, which V8 gained in Node 22.10; on Node 20 (our floor) it is missing and every
 * document fails with "Promise.try is not a function". This adds the standard behaviour where absent.
 */
function ensurePromiseTry(): void {
  const promise = Promise as PromiseWithTry;
  if (typeof promise.try === 'function') return;
  Object.defineProperty(Promise, 'try', {
    value: (fn: (...args: unknown[]) => unknown, ...args: unknown[]) => new Promise((resolve) => resolve(fn(...args))),
    writable: true,
    configurable: true,
  });
}

function pdfDate(value: unknown): string | null {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return null;
}

function infoString(info: Record<string, unknown>, key: string): string | null {
  const value = info[key];
  return typeof value === 'string' ? oneLine(value) : null;
}

/** Throws the PDF.js error (InvalidPDFException, PasswordException) when the bytes cannot be read. */
export async function extractPdf(body: Buffer): Promise<Extraction> {
  ensurePromiseTry();
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  // A copy: PDF.js may transfer (detach) the buffer it is given, and the caller's Buffer may be pooled.
  const pdf = await getDocumentProxy(new Uint8Array(body), { verbosity: 0 });
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const { info } = await getMeta(pdf, { parseDates: true });
    const record = info as Record<string, unknown>;
    return {
      text: tidyText(text.map((page) => page.trim()).filter((page) => page !== '').join('\n\n')),
      title: infoString(record, 'Title'),
      metadata: {
        author: infoString(record, 'Author'),
        description: infoString(record, 'Subject'),
        keywords: infoString(record, 'Keywords'),
        publishedAt: pdfDate(record['CreationDate']),
        lang: infoString(record, 'Language'),
        pageCount: totalPages,
      },
    };
  } finally {
    await pdf.destroy();
  }
}
