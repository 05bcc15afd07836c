import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { detectType } from '../../src/ingest/content-type.js';
import { domToText } from '../../src/ingest/extract-html.js';
import { extractDocument, extractFromUrl } from '../../src/ingest/extract.js';
import { DEFAULT_FETCH_POLICY, type FetchPolicy } from '../../src/ingest/fetch-url.js';
import { jsonToText } from '../../src/ingest/extract-json.js';
import { normaliseDate, truncateText } from '../../src/ingest/text.js';
import { parseHTML } from 'linkedom';
import { fixture, REPORT_PDF, startFixtureServer, type FixtureServer } from '../fixtures/ingest/fixture-server.js';
import { makePdf } from '../fixtures/ingest/make-pdf.js';

const POLICY: FetchPolicy = { ...DEFAULT_FETCH_POLICY, timeoutMs: 10_000, maxBytes: 1024 * 1024 };

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => new Error('expected the extraction to fail'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof MemError)) throw error;
  return error;
}

describe('extractFromUrl', () => {
  it('reads an article page: main text without boilerplate, title, author, date, canonical URL, site name', async () => {
    const url = `${server.origin}/article.html`;
    const document = await extractFromUrl(url, POLICY);
    expect(document.title).toBe('Why Tides Happen');
    expect(document.metadata).toMatchObject({
      format: 'html',
      mimeType: 'text/html',
      sourceUrl: url,
      author: 'Marie Tharp',
      publishedAt: '2024-03-05T10:00:00.000Z',
      siteName: 'Ocean Notes',
      canonicalUrl: `${server.origin}/articles/why-tides-happen`,
      description: 'A short explanation of why the sea rises and falls twice a day.',
      lang: 'en-GB',
      sizeBytes: fixture('article.html').byteLength,
    });
    expect(document.metadata).not.toHaveProperty('requestedUrl');
    // Paragraphs stay paragraphs; lists keep their items.
    expect(document.text).toContain('Tides are the rise and fall of sea levels caused by the combined effects');
    expect(document.text).toContain('every lunar day.\n\nThe Moon');
    expect(document.text).toContain('- Spring tides: new and full moon.\n- Neap tides: first and last quarter.');
    expect(document.text).not.toMatch(/<\/?p>|<li>/);
    // Navigation, sidebar, footer, scripts and styles are gone.
    for (const boilerplate of ['Subscribe to our newsletter', 'About us', 'All rights reserved', 'Privacy policy', 'How waves form', 'analytics', 'font-family']) {
      expect(document.text).not.toContain(boilerplate);
    }
  });

  it('reads Markdown with front matter: title from it, block removed from the text, pairs in metadata', async () => {
    const document = await extractFromUrl(`${server.origin}/notes.md`, POLICY);
    expect(document.title).toBe('Sourdough starter notes');
    expect(document.text.startsWith('# Feeding schedule\n\nFeed the starter twice a day')).toBe(true);
    expect(document.text).not.toContain('---');
    expect(document.metadata).toMatchObject({
      format: 'markdown',
      mimeType: 'text/markdown',
      author: 'Ada',
      publishedAt: '2024-05-01',
      frontMatter: { title: 'Sourdough starter notes', author: 'Ada', date: '2024-05-01', tags: ['baking', 'bread'], aliases: ['starter', 'levain'] },
    });
  });

  it('reads Markdown served as text/plain by its .md path', async () => {
    const document = await extractFromUrl(`${server.origin}/raw/notes.md`, POLICY);
    expect(document.metadata).toMatchObject({ format: 'markdown', mimeType: 'text/plain' });
    expect(document.title).toBe('Sourdough starter notes');
  });

  it('reads JSON as key: value lines with the name as title', async () => {
    const document = await extractFromUrl(`${server.origin}/data.json`, POLICY);
    expect(document.title).toBe('Lighthouse survey');
    expect(document.metadata).toMatchObject({ format: 'json', mimeType: 'application/json' });
    expect(document.text).toBe(
      [
        'name: Lighthouse survey',
        'year: 2023',
        'active: true',
        'keepers: Grace Darling, Ida Lewis',
        'location:',
        '  coast: Northumberland',
        '  lat: 55.6',
        'visits:',
        '  - date: 2023-06-01',
        '    notes: Lamp cleaned',
        '  - date: 2023-09-12',
        '    notes: Storm damage to the gallery',
      ].join('\n'),
    );
  });

  it('reads plain text as written, with no title', async () => {
    const document = await extractFromUrl(`${server.origin}/plain.txt`, POLICY);
    expect(document).toMatchObject({ title: null, text: 'Shopping list for the weekend\n\n- eggs\n- flour\n- a new whisk' });
    expect(document.metadata).toMatchObject({ format: 'text', mimeType: 'text/plain' });
  });

  it("reads a PDF's text layer, pages, title and author", async () => {
    const document = await extractFromUrl(`${server.origin}/report.pdf`, POLICY);
    expect(document.title).toBe('Q3 Report');
    expect(document.text).toBe('Quarterly report\nRevenue grew by ten percent in the third quarter.\n\nCosts fell on the second page.');
    expect(document.metadata).toMatchObject({
      format: 'pdf',
      mimeType: 'application/pdf',
      pageCount: 2,
      author: 'Ada Lovelace',
      description: 'Third quarter results',
      publishedAt: '2024-03-05T10:00:00.000Z',
      sizeBytes: REPORT_PDF.byteLength,
    });
  });

  it('sniffs a PDF served as application/octet-stream without an extension', async () => {
    const document = await extractFromUrl(`${server.origin}/download`, POLICY);
    expect(document.metadata).toMatchObject({ format: 'pdf', mimeType: 'application/pdf' });
    expect(document.title).toBe('Q3 Report');
  });

  it('records the URL asked for when redirects led elsewhere', async () => {
    const document = await extractFromUrl(`${server.origin}/redirect/2`, POLICY);
    expect(document.metadata).toMatchObject({ sourceUrl: `${server.origin}/plain.txt`, requestedUrl: `${server.origin}/redirect/2` });
  });

  it('refuses an unsupported content type by its header, saying which', async () => {
    const error = await failure(extractFromUrl(`${server.origin}/image.png`, POLICY));
    expect(error.code).toBe('INVALID_URL');
    expect(error.message).toBe(`unsupported content type image/png from ${server.origin}/image.png (supported: HTML, Markdown, plain text, JSON, PDF)`);
    expect(error.details).toMatchObject({ reason: 'unsupported-type', contentType: 'image/png' });
  });

  it('refuses a page with no text', async () => {
    const error = await failure(extractFromUrl(`${server.origin}/empty.html`, POLICY));
    expect(error.code).toBe('INVALID_URL');
    expect(error.message).toBe(`no text could be extracted from ${server.origin}/empty.html (text/html)`);
    expect(error.details).toMatchObject({ reason: 'empty-text' });
  });

  it('passes fetch failures through as INVALID_URL', async () => {
    const error = await failure(extractFromUrl(`${server.origin}/missing`, POLICY));
    expect(error.code).toBe('INVALID_URL');
    expect(error.message).toBe(`HTTP 404 from ${server.origin}/missing`);
  });

  it('cuts the text at maxChars when asked, and says so', async () => {
    const document = await extractFromUrl(`${server.origin}/article.html`, POLICY, { maxChars: 200 });
    expect(document.text.length).toBeLessThanOrEqual(200);
    expect(document.text.length).toBeGreaterThan(150);
    expect(document.metadata.truncated).toBe(true);
    expect(document.metadata.originalChars).toBeGreaterThan(600);
  });
});

describe('extractDocument (uploads and files)', () => {
  it('records filename, mime type and size, and reads each type', async () => {
    const markdown = await extractDocument(fixture('notes.md'), 'text/markdown', { filename: 'notes.md' });
    expect(markdown.metadata).toMatchObject({ filename: 'notes.md', mimeType: 'text/markdown', sizeBytes: fixture('notes.md').byteLength });
    const pdf = await extractDocument(REPORT_PDF, 'application/pdf', { filename: 'report.pdf' });
    expect(pdf.metadata).toMatchObject({ format: 'pdf', pageCount: 2, filename: 'report.pdf' });
    const html = await extractDocument(fixture('article.html'), 'text/html', { filename: 'tides.html' });
    expect(html.title).toBe('Why Tides Happen');
    expect(html.metadata).not.toHaveProperty('sourceUrl');
    // Without a base URL, a relative canonical link cannot be made absolute and is left out.
    expect(html.metadata).not.toHaveProperty('canonicalUrl');
  });

  it('uses the extension when the type is generic, then sniffs the bytes', async () => {
    const byName = await extractDocument(fixture('notes.md'), 'application/octet-stream', { filename: 'notes.md' });
    expect(byName.metadata).toMatchObject({ format: 'markdown', mimeType: 'text/markdown' });
    const html = await extractDocument(fixture('article.html'), 'application/octet-stream');
    expect(html.metadata.format).toBe('html');
    const json = await extractDocument(fixture('data.json'), '');
    expect(json.metadata.format).toBe('json');
    const pdf = await extractDocument(REPORT_PDF, 'application/octet-stream');
    expect(pdf.metadata.format).toBe('pdf');
    const text = await extractDocument(Buffer.from('just words\r\nand more\r\n'), 'application/octet-stream');
    expect(text).toMatchObject({ text: 'just words\nand more', metadata: { format: 'text' } });
  });

  it('refuses unsupported types and binary bytes with VALIDATION_ERROR', async () => {
    const png = await failure(extractDocument(Buffer.from('89504e47', 'hex'), 'image/png', { filename: 'photo.png' }));
    expect(png.code).toBe('VALIDATION_ERROR');
    expect(png.message).toBe('unsupported content type image/png for "photo.png" (supported: HTML, Markdown, plain text, JSON, PDF)');
    const binary = await failure(extractDocument(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]), 'application/octet-stream'));
    expect(binary.message).toBe('unsupported content type application/octet-stream for the upload (supported: HTML, Markdown, plain text, JSON, PDF)');
  });

  it('refuses empty text, invalid JSON and a broken PDF with a clear message', async () => {
    const empty = await failure(extractDocument(Buffer.from('  \n\n '), 'text/plain', { filename: 'blank.txt' }));
    expect(empty).toMatchObject({ code: 'VALIDATION_ERROR', message: 'no text could be extracted from "blank.txt" (text/plain)' });
    const scanned = await failure(extractDocument(makePdf({ pages: [[]] }), 'application/pdf', { filename: 'scan.pdf' }));
    expect(scanned.message).toBe('no text could be extracted from "scan.pdf" (application/pdf) (a scanned PDF without a text layer?)');
    const json = await failure(extractDocument(Buffer.from('{"a": '), 'application/json', { filename: 'bad.json' }));
    expect(json.message).toMatch(/^"bad\.json" is not valid JSON: /);
    expect(json.details).toMatchObject({ reason: 'invalid-content' });
    const pdf = await failure(extractDocument(Buffer.from('%PDF-1.4\nnothing else'), 'application/pdf', { filename: 'broken.pdf' }));
    expect(pdf.message).toMatch(/^"broken\.pdf" is not a readable PDF: /);
  });

  it('drops bare nav and footer elements from a short page', async () => {
    const html = '<html><head><title>Tiny</title></head><body><nav>Menu</nav><div>Only a line.</div><footer>Foot</footer></body></html>';
    const document = await extractDocument(Buffer.from(html), 'text/html');
    expect(document.text).toBe('Only a line.');
    expect(document.title).toBe('Tiny');
  });

  it('falls back to the body text when Readability finds no article', async () => {
    // Readability discards <aside> content; a page that is only an aside still has something to say.
    const html = '<html><head><title>Hours</title></head><body><nav>Menu</nav><aside><p>Open 9 to 5.</p><p>Closed Sundays.</p></aside><footer>Foot</footer></body></html>';
    const document = await extractDocument(Buffer.from(html), 'text/html');
    expect(document.text).toBe('Open 9 to 5.\n\nClosed Sundays.');
  });

  it('decodes the declared charset', async () => {
    const latin1 = Buffer.from('<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e.</p></body></html>', 'latin1');
    const document = await extractDocument(latin1, 'text/html');
    expect(document.title).toBe('Caf\u00e9');
    expect(document.text).toBe('Cr\u00e8me br\u00fbl\u00e9e.');
    const header = await extractDocument(Buffer.from('na\u00efve', 'latin1'), 'text/plain; charset=ISO-8859-1');
    expect(header.text).toBe('na\u00efve');
  });

  it('takes a Markdown title from the first level-one heading when there is no front matter', async () => {
    const source = '```\n# not a heading\n```\n\nIntro\n\n# Real title\n\nBody';
    expect((await extractDocument(Buffer.from(source), 'text/markdown')).title).toBe('Real title');
    expect((await extractDocument(Buffer.from('Setext title\n===\n\ntext'), 'text/markdown')).title).toBe('Setext title');
  });
});

describe('domToText', () => {
  it('keeps paragraphs, line breaks, list items, table rows and preformatted text', () => {
    const { document } = parseHTML(
      '<div><h2>Head</h2><p>One <b>bold</b>\n   word.</p><p>Line<br>break</p><ul><li>a</li><li>b</li></ul>' +
        '<table><tr><th>k</th><td>v</td></tr></table><pre>  code\n    indented</pre></div>',
    ) as unknown as { document: { querySelector(selector: string): Parameters<typeof domToText>[0] } };
    expect(domToText(document.querySelector('div'))).toBe('Head\n\nOne bold word.\n\nLine\nbreak\n\n- a\n- b\n\nk | v\n\n  code\n    indented');
  });
});

describe('detectType', () => {
  it('trusts a specific header over the name, and the name over the bytes', () => {
    expect(detectType(Buffer.from('<html></html>'), 'image/png', 'page.html')).toBeNull();
    expect(detectType(Buffer.from('{}'), 'text/plain', 'data.json')?.format).toBe('json');
    expect(detectType(Buffer.from('not json'), 'text/plain', 'data.json')?.format).toBe('text');
    expect(detectType(Buffer.from('%PDF-1.7'), 'application/octet-stream', 'notes.txt')?.format).toBe('text');
    expect(detectType(Buffer.from('{"a":1}'), 'application/ld+json')?.format).toBe('json');
    expect(detectType(Buffer.from('a,b'), 'text/csv')?.format).toBe('text');
  });
});

describe('text helpers', () => {
  it('normalises dates to ISO 8601 and leaves what does not parse as written', () => {
    expect(normaliseDate('March 5, 2024 10:00 UTC')).toBe('2024-03-05T10:00:00.000Z');
    expect(normaliseDate('2024-03-05T12:00:00+02:00')).toBe('2024-03-05T10:00:00.000Z');
    expect(normaliseDate('2024-05-01')).toBe('2024-05-01');
    expect(normaliseDate('spring last year')).toBe('spring last year');
    expect(normaliseDate('  ')).toBeNull();
  });

  it('truncates at a paragraph or word break, never inside a surrogate pair', () => {
    expect(truncateText('short', 10)).toEqual({ text: 'short', truncated: false });
    expect(truncateText('alpha beta gamma delta', 13)).toEqual({ text: 'alpha beta', truncated: true });
    expect(truncateText('one two three\n\nfour five six', 17)).toEqual({ text: 'one two three', truncated: true });
    const emoji = truncateText('abcdefghi\u{1F600}z', 10);
    expect(emoji).toEqual({ text: 'abcdefghi', truncated: true });
  });

  it('renders top-level arrays and empty containers', () => {
    expect(jsonToText([{ id: 1, tags: [] }, 'loose', [1, 2]])).toBe('- id: 1\n  tags: []\n- loose\n- - 1\n  - 2');
  });
});
