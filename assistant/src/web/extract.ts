// A web page's readable content: @mozilla/readability over a linkedom DOM (navigation, ads, sidebars and footers
// dropped), converted to Markdown, with the title and the links of the content. Also the judgement whether a page
// needs JavaScript to show its content (too little text in a page that has scripts or a <noscript> message).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

import { AssistantInputError } from '../errors';
import { htmlToMarkdown } from './markdown';
import { absoluteHttpUrl } from './urls';

export interface PageLink {
  text: string;
  url: string;
}

export interface ExtractedPage {
  title: string;
  byline: string | undefined;
  siteName: string | undefined;
  markdown: string;
  links: PageLink[];
  /** The visible text of the whole page (without scripts, styles, noscript), in characters. */
  pageTextChars: number;
  /** The page has too little text and scripts or a noscript message: rendering it in a browser may show more. */
  needsJavaScript: boolean;
}

/** Below this many characters of visible text, a page with scripts is taken for a JavaScript shell. */
export const MIN_STATIC_TEXT_CHARS = 200;
export const MAX_LINKS = 100;
/** Readability gives up on pages with more elements than this (a large Wikipedia article has about 20,000). */
const MAX_ELEMENTS = 100_000;

type Doc = ReturnType<typeof parseHTML>['document'];
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/** Reads `html` (the page at `pageUrl`, for relative links). */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const { document } = parseHTML(html);
  const base = absoluteHttpUrl(document.querySelector('base[href]')?.getAttribute('href'), pageUrl) ?? pageUrl;
  absolutiseLinks(document, base);
  const pageText = visibleText(document);
  const hasScripts = document.querySelector('script') !== null;
  const noscript = [...document.querySelectorAll('noscript')].some((node) => (node.textContent ?? '').trim() !== '');
  const pageTitle = clean(document.querySelector('title')?.textContent);

  const article = readArticle(document);
  let contentHtml: string;
  if (article?.content && clean(article.textContent) !== '') {
    contentHtml = article.content;
  } else {
    for (const node of document.querySelectorAll('nav, header, footer, aside, script, style, noscript')) {
      node.remove();
    }
    contentHtml = document.body?.innerHTML ?? '';
  }
  return {
    title: clean(article?.title) || pageTitle || clean(document.querySelector('h1')?.textContent),
    byline: clean(article?.byline) || undefined,
    siteName: clean(article?.siteName) || undefined,
    markdown: htmlToMarkdown(contentHtml),
    links: linksOf(parseHTML(`<html><body>${contentHtml}</body></html>`).document, base),
    pageTextChars: pageText.length,
    needsJavaScript: pageText.length < MIN_STATIC_TEXT_CHARS && (hasScripts || noscript),
  };
}

/** Readability's article, or null when it finds none or the page is too big for it (the caller falls back). */
function readArticle(document: Doc): ReturnType<Readability['parse']> {
  try {
    // Readability changes the document it reads: it gets its own copy.
    const copy = parseHTML(document.toString()).document as unknown as ReadabilityDocument;
    return new Readability(copy, { charThreshold: 100, keepClasses: false, maxElemsToParse: MAX_ELEMENTS }).parse();
  } catch {
    return null;
  }
}

/** Every href and src made absolute, so the Markdown and the links work outside the page. */
function absolutiseLinks(document: Doc, base: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const node of document.querySelectorAll(selector)) {
      const absolute = absoluteHttpUrl(node.getAttribute(attribute), base);
      if (absolute) node.setAttribute(attribute, absolute);
      else if (attribute === 'href') node.removeAttribute('href'); // javascript:, mailto:, … : kept as text only
    }
  }
}

function linksOf(document: Doc, base: string): PageLink[] {
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const anchor of document.querySelectorAll('a[href]')) {
    const url = absoluteHttpUrl(anchor.getAttribute('href'), base);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    links.push({ text: clean(anchor.textContent) || url, url });
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

function visibleText(document: Doc): string {
  const body = document.body;
  if (!body) return '';
  const copy = body.cloneNode(true) as typeof body;
  for (const node of copy.querySelectorAll('script, style, noscript, template')) node.remove();
  return clean(copy.textContent);
}

const clean = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The part of a page a CSS selector picks, as Markdown (each match in document order), or null when nothing matches.
 * A selector that cannot be parsed is an AssistantInputError on `selector`.
 */
export function selectContent(html: string, selector: string, pageUrl: string): string | null {
  const { document } = parseHTML(html);
  absolutiseLinks(document, pageUrl);
  let matches;
  try {
    matches = [...document.querySelectorAll(selector)];
  } catch (error) {
    throw new AssistantInputError(
      'selector',
      `is not a CSS selector this reader understands (${(error as Error).message})`,
    );
  }
  const parts = matches.map((node) => htmlToMarkdown(node.outerHTML).trim()).filter(Boolean);
  return parts.length > 0 ? parts.join('\n\n') : null;
}
