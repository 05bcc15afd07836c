import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { Extraction } from './extraction.js';
import { normaliseDate, oneLine, tidyText } from './text.js';

/**
 * HTML pages: Readability (Firefox's reader view) finds the article and drops navigation, headers and footers;
 * linkedom gives it a DOM without a browser. Page metadata comes from <meta> (Open Graph, article:*, name=),
 * <link rel=canonical> and <html lang>, read before Readability rewrites the document. When Readability finds
 * no article, the body's visible text (without nav, header, footer, aside) is used instead.
 */

/** The slice of the DOM this module touches (linkedom's typings lean on the browser's lib.dom). */
interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<DomNode>;
}

interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  remove(): void;
  closest(selector: string): DomElement | null;
}

interface DomDocument {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
  readonly title: string;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const DOCUMENT_NODE = 9;
const FRAGMENT_NODE = 11;

const BLOCKS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'CAPTION', 'DD', 'DETAILS', 'DIV', 'DL', 'DT', 'FIELDSET',
  'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN',
  'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TFOOT', 'THEAD', 'TR', 'UL',
]);
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'IFRAME', 'OBJECT', 'HEAD', 'BUTTON', 'SELECT']);
const CELLS = new Set(['TD', 'TH']);
const CONTAINERS = new Set(['UL', 'OL', 'MENU', 'TABLE']);
// Private-use stand-ins for <pre> whitespace, so that the collapsing of ordinary whitespace leaves it alone.
const PRE_SPACE = '\uE000';
const PRE_TAB = '\uE001';

/**
 * Plain text of a DOM subtree with paragraph breaks: block elements become paragraphs separated by a blank
 * line, <br> a line break, list items ("- ") and table rows (cells joined by " | ") one per line, <pre> keeps
 * its whitespace.
 */
export function domToText(root: DomNode): string {
  // A list item or table row follows the one before it in the same list or table with a single newline.
  const paragraphs: { text: string; group: number | null }[] = [];
  let current = '';
  let line = false;
  let group = 0;
  let groups = 0;
  const flush = (): void => {
    // A bullet waiting for its item's first paragraph (<li><p>...</p></li>) stays with it.
    if (current.trim() === '-') return;
    const paragraph = current
      .split('\n')
      .map((line) => line.replace(/[ \t]+/g, ' ').trim())
      .filter((line, index, lines) => line !== '' || (index > 0 && index < lines.length - 1))
      .join('\n')
      .trim();
    if (paragraph) paragraphs.push({ text: paragraph, group: line ? group : null });
    current = '';
    line = false;
  };
  const walk = (node: DomNode, preformatted: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? '';
      current += preformatted ? text.replace(/ /g, PRE_SPACE).replace(/\t/g, PRE_TAB) : text.replace(/\s+/g, ' ');
      return;
    }
    if (node.nodeType !== ELEMENT_NODE && node.nodeType !== DOCUMENT_NODE && node.nodeType !== FRAGMENT_NODE) return;
    const name = node.nodeName.toUpperCase();
    if (SKIPPED.has(name)) return;
    if (name === 'BR') {
      current += '\n';
      return;
    }
    const block = BLOCKS.has(name);
    if (block) flush();
    if (name === 'LI') current += '- ';
    if (name === 'LI' || name === 'TR') line = true;
    if (CELLS.has(name) && current.trim() !== '') current += ' | ';
    const pre = preformatted || name === 'PRE';
    const outer = group;
    if (CONTAINERS.has(name)) group = ++groups;
    for (const child of Array.from(node.childNodes)) walk(child, pre);
    group = outer;
    if (block) flush();
  };
  walk(root, false);
  flush();
  const text = paragraphs
    .map((paragraph, index) => {
      const previous = paragraphs[index - 1];
      const separator = index === 0 ? '' : paragraph.group !== null && paragraph.group === previous?.group ? '\n' : '\n\n';
      return separator + paragraph.text;
    })
    .join('');
  return tidyText(text.replaceAll(PRE_SPACE, ' ').replaceAll(PRE_TAB, '\t'));
}

function meta(document: DomDocument, ...keys: string[]): string | null {
  for (const key of keys) {
    const element =
      document.querySelector(`meta[property="${key}"]`) ??
      document.querySelector(`meta[name="${key}"]`) ??
      document.querySelector(`meta[itemprop="${key}"]`);
    const value = oneLine(element?.getAttribute('content'));
    if (value) return value;
  }
  return null;
}

function absolute(href: string | null | undefined, base: string | undefined): string | null {
  if (!href) return null;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return null;
  }
}

/** The charset an HTML document declares in its first 1024 bytes (<meta charset> or http-equiv). */
export function declaredCharset(head: string): string | null {
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head.slice(0, 1024))?.[1]?.toLowerCase() ?? null;
}

function removeAll(document: DomDocument, selector: string): void {
  for (const element of Array.from(document.querySelectorAll(selector))) element.remove();
}

export function extractHtml(html: string, url: string | undefined): Extraction {
  const { document } = parseHTML(html) as unknown as { document: DomDocument };
  const root = document.documentElement;

  const pageTitle = oneLine(document.title) ?? oneLine(document.querySelector('h1')?.textContent);
  const headMetadata = {
    title: meta(document, 'og:title', 'twitter:title'),
    description: meta(document, 'description', 'og:description', 'twitter:description'),
    author: meta(document, 'author', 'article:author', 'dc.creator', 'DC.creator'),
    publishedAt: meta(document, 'article:published_time', 'datePublished', 'date', 'dc.date', 'DC.date'),
    siteName: meta(document, 'og:site_name', 'application-name'),
    canonicalUrl:
      absolute(document.querySelector('link[rel="canonical"]')?.getAttribute('href'), url) ??
      absolute(meta(document, 'og:url'), url),
    lang: oneLine(root?.getAttribute('lang')),
    time: document.querySelector('time[datetime]')?.getAttribute('datetime') ?? null,
  };

  // Readability scores by class names and ids; bare <nav> and page-level <footer>/<aside> carry none, so they
  // go first. Its serializer hands back the article's DOM node, which domToText walks for paragraph breaks.
  removeAll(document, 'nav, [role="navigation"]');
  for (const element of Array.from(document.querySelectorAll('footer, aside'))) {
    if (!element.closest('article, main')) element.remove();
  }
  const article = new Readability<DomNode>(document as never, { serializer: (node) => node as unknown as DomNode }).parse();
  let text = article?.content ? domToText(article.content) : '';
  if (!text) {
    // Readability drops what it takes for sidebars and comments; a page that is nothing else still has text.
    // It also rewrote the first document, so the fallback reads a fresh one.
    const fresh = (parseHTML(html) as unknown as { document: DomDocument }).document;
    removeAll(fresh, 'nav, footer, [role="navigation"], [aria-hidden="true"]');
    text = fresh.body ? domToText(fresh.body) : '';
  }

  return {
    text,
    title: oneLine(article?.title) ?? headMetadata.title ?? pageTitle,
    metadata: {
      description: oneLine(article?.excerpt) ?? headMetadata.description,
      author: oneLine(article?.byline) ?? headMetadata.author,
      publishedAt: normaliseDate(article?.publishedTime ?? headMetadata.publishedAt ?? headMetadata.time),
      siteName: oneLine(article?.siteName) ?? headMetadata.siteName,
      canonicalUrl: headMetadata.canonicalUrl,
      lang: headMetadata.lang ?? oneLine(article?.lang),
    },
  };
}
