// read_page: a URL's readable content as Markdown (HTML), text (PDF, plain text), with its title and links.
//
// Fetch first, through the outbound guard (its redirect limit and checks on every hop), with a time limit and a size
// limit (streamed; reading stops at the limit). An HTML page that needs JavaScript (too little text, with scripts or
// a <noscript> message) is rendered by the browser service, as is any page when `render: true` is asked. Results are
// cached per URL for a few minutes (and one read of a URL runs at a time).
import { AssistantInputError, FieldError } from '../errors';
import { OutboundRefusedError, type OutboundGuard } from '../outbound';
import { BrowserServiceError, type BrowserClient } from '../browser/client';
import type { RenderedPage } from '../browser/protocol';
import { BodyTooLargeError, readBodyWithLimit } from '../outbound/body';
import { TtlCache } from './cache';
import { BROWSER_USER_AGENT } from './duckduckgo';
import { PageReadError } from './errors';
import { extractPage, selectContent, type PageLink } from './extract';
import { extractPdfText, looksLikePdf } from './pdf';

export interface ReadPageInput {
  url: unknown;
  /** The most characters of content to return; 20,000 by default. */
  maxChars?: unknown;
  /** Render in the browser even when the page does not seem to need it. */
  render?: unknown;
  /** Only the part of the page this CSS selector picks (rendered when nothing matches and the page has scripts). */
  selector?: unknown;
  /** Read the page anew, not from the cache (the checks compare successive reads). */
  fresh?: unknown;
}

export interface ReadPageResult {
  /** The URL asked for. */
  url: string;
  /** Where it ended up after redirects. */
  finalUrl: string;
  title: string;
  byline?: string;
  siteName?: string;
  contentType: string;
  /** `markdown` for HTML pages, `text` for PDFs and plain text. */
  format: 'markdown' | 'text';
  content: string;
  /** The length of the whole content; `content` holds at most maxChars of it. */
  totalChars: number;
  truncated: boolean;
  links: PageLink[];
  /** A PDF's page count. */
  pages?: number;
  /** Whether the content comes from the browser service (the page ran its JavaScript). */
  rendered: boolean;
  /** Served from the per-URL cache. */
  cached: boolean;
  /** Something the reader should know (e.g. the page seems to need JavaScript and could not be rendered). */
  note?: string;
}

export interface PageReaderOptions {
  guard: OutboundGuard;
  /** The browser service; without it, pages are never rendered (and `render: true` is refused). */
  browser?: BrowserClient;
  /** The largest body read, in bytes; 10 MB by default. */
  maxBytes?: number;
  /** The time limit of a fetch (connection, redirects, body); 20 s by default. */
  timeoutMs?: number;
  /** The time limit of a render in the browser service; 30 s by default. */
  renderTimeoutMs?: number;
  /** How long a read page is kept; 5 minutes by default (0: no cache). */
  cacheTtlMs?: number;
  cacheEntries?: number;
  now?: () => number;
}

export interface PageReader {
  read(input: ReadPageInput): Promise<ReadPageResult>;
}

export const DEFAULT_MAX_CHARS = 20_000;
/** The most characters of content the cache holds, all pages together (a few tens of MB at most). */
const CACHE_MAX_CHARS = 16_000_000;
export const MIN_MAX_CHARS = 200;
export const MAX_MAX_CHARS = 200_000;

/** A read page before it is cut to maxChars (what the cache keeps). */
type Page = Omit<ReadPageResult, 'content' | 'totalChars' | 'truncated' | 'cached'> & { fullContent: string };

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES =
  /^(text\/[\w.+-]+|application\/(json|xml|rss\+xml|atom\+xml|ld\+json|javascript)|[\w.-]+\/[\w.-]+\+(json|xml))$/;

export function createPageReader(options: PageReaderOptions): PageReader {
  const reader: ReaderContext = {
    guard: options.guard,
    browser: options.browser,
    limits: { maxBytes: options.maxBytes ?? 10 * 1024 * 1024, timeoutMs: options.timeoutMs ?? 20_000 },
    renderTimeoutMs: options.renderTimeoutMs ?? 30_000,
  };
  const cache = new TtlCache<Page>({
    ttlMs: options.cacheTtlMs ?? 5 * 60_000,
    maxEntries: options.cacheEntries ?? 64,
    maxWeight: CACHE_MAX_CHARS,
    weigh: (page) => page.fullContent.length,
    now: options.now,
  });
  const inFlight = new Map<string, Promise<Page>>();

  /** One read of a URL at a time: a second caller waits for the first one's page. */
  function readOnce(key: string, read: () => Promise<Page>, fresh: boolean): Promise<Page> {
    let pending = fresh ? undefined : inFlight.get(key);
    if (!pending) {
      pending = read().finally(() => {
        if (inFlight.get(key) === pending) inFlight.delete(key);
      });
      inFlight.set(key, pending);
    }
    return pending;
  }

  return {
    async read(input: ReadPageInput): Promise<ReadPageResult> {
      const url = checkUrl(input?.url);
      const maxChars = checkMaxChars(input?.maxChars);
      const render = checkFlag(input?.render, 'render');
      const selector = checkSelector(input?.selector);
      const fresh = checkFlag(input?.fresh, 'fresh');
      const key = `${render ? 'render' : 'fetch'} ${url}${selector ? ` ${selector}` : ''}`;
      const cached = fresh ? undefined : cache.get(key);
      if (cached) return shape(cached, maxChars, true);
      const page = await readOnce(
        key,
        () => (render ? renderPage(reader, url, selector) : fetchPage(reader, url, selector)),
        fresh,
      );
      cache.set(key, page);
      return shape(page, maxChars, false);
    },
  };
}

/** What the reader's steps need: the guard, the browser service and the limits. */
interface ReaderContext {
  guard: OutboundGuard;
  browser: BrowserClient | undefined;
  limits: FetchLimits;
  renderTimeoutMs: number;
}

/** Fetches `url` and reads it by its type; `mayRender` is false when the browser already said it is not HTML. */
async function fetchPage(
  reader: ReaderContext,
  url: string,
  selector: string | undefined,
  mayRender = true,
): Promise<Page> {
  const fetched = await fetchBody(reader.guard, url, reader.limits);
  const { finalUrl, bytes, contentType } = fetched;
  const mime = contentType.split(';')[0].trim().toLowerCase();
  const base = { url, finalUrl, contentType: mime || 'unknown', rendered: false };
  if (mime === 'application/pdf' || looksLikePdf(bytes)) return await pdfPage(base, bytes);
  const text = decodeText(bytes, contentType);
  if (HTML_TYPES.has(mime) || (mime === '' && /^\s*(<!doctype html|<html)/i.test(text))) {
    return await htmlPage(reader, base, text, selector, mayRender);
  }
  if (TEXT_TYPES.test(mime)) {
    return { ...base, title: finalUrl, format: 'text', fullContent: text.trim(), links: [] };
  }
  throw new PageReadError(`${finalUrl} is ${mime || 'of an unknown type'}, which cannot be read as text`);
}

/** An HTML page as Markdown (or the part `selector` picks), rendered when it needs JavaScript and may be. */
async function htmlPage(
  reader: ReaderContext,
  base: PageBase,
  html: string,
  selector: string | undefined,
  mayRender: boolean,
): Promise<Page> {
  const extracted = extractPage(html, base.finalUrl);
  const page: Page = {
    ...base,
    title: extracted.title,
    byline: extracted.byline,
    siteName: extracted.siteName,
    format: 'markdown',
    fullContent: extracted.markdown,
    links: extracted.links,
  };
  if (selector) {
    const selected = selectContent(html, selector, base.finalUrl);
    if (selected !== null) return { ...page, format: 'text', fullContent: selected };
    if (mayRender && reader.browser && /<script[\s>]/i.test(html)) return await renderPage(reader, base.url, selector);
    throw new PageReadError(`nothing on ${base.finalUrl} matches the selector "${selector}"`);
  }
  if (!extracted.needsJavaScript || !mayRender) return page;
  if (!reader.browser) {
    return {
      ...page,
      note: 'the page seems to need JavaScript, and no browser service is configured (ASSISTANT_BROWSER_URL); this is what it shows without it',
    };
  }
  try {
    return await renderPage(reader, base.url);
  } catch (error) {
    return {
      ...page,
      note: `the page seems to need JavaScript, but ${reasonOf(error)}; this is what it shows without it`,
    };
  }
}

async function renderPage(reader: ReaderContext, url: string, selector?: string): Promise<Page> {
  if (!reader.browser) {
    throw new AssistantInputError(
      'render',
      'rendering needs the browser service; set ASSISTANT_BROWSER_URL and ASSISTANT_BROWSER_KEY',
    );
  }
  const decision = await reader.guard.check(url);
  if (!decision.allowed) throw new OutboundRefusedError(decision.reason);
  let rendered;
  try {
    rendered = await reader.browser.render({ url, timeoutMs: reader.renderTimeoutMs });
  } catch (error) {
    if (!(error instanceof BrowserServiceError)) throw error;
    if (error.code === 'refused') throw new OutboundRefusedError(error.message);
    if (error.code === 'not_html') return await fetchPage(reader, url, selector, false);
    throw new PageReadError(`${url} could not be rendered: ${error.message}`);
  }
  return renderedPage(url, rendered, selector);
}

/** What every read page starts from: where it was asked for and where it ended up. */
type PageBase = Pick<Page, 'url' | 'finalUrl' | 'contentType' | 'rendered'>;

interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
}

interface FetchedBody {
  finalUrl: string;
  bytes: Buffer;
  /** The Content-Type header as sent ('' when none). */
  contentType: string;
}

/** Fetches `url` through the guard within the time and size limits; an HTTP error is a PageReadError. */
async function fetchBody(guard: OutboundGuard, url: string, limits: FetchLimits): Promise<FetchedBody> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const late = () => new PageReadError(`${url} did not answer within ${limits.timeoutMs / 1000} s`);
  let response: Response;
  try {
    response = await guard.fetch(url, {
      signal,
      headers: {
        accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/*;q=0.8,*/*;q=0.5',
        'accept-language': 'en;q=0.9,*;q=0.5',
        'user-agent': BROWSER_USER_AGENT,
      },
    });
  } catch (error) {
    throw signal.aborted ? late() : error;
  }
  const finalUrl = response.url || url;
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new PageReadError(`${finalUrl} answered HTTP ${status}`);
  }
  let bytes: Buffer;
  try {
    bytes = await readBodyWithLimit(response, limits.maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new PageReadError(`${finalUrl} is too large: ${error.message}`);
    throw signal.aborted ? late() : new PageReadError(`${finalUrl} could not be read: ${(error as Error).message}`);
  }
  return { finalUrl, bytes, contentType: response.headers.get('content-type') ?? '' };
}

/** A PDF's text, titled by its metadata or else its file name. */
async function pdfPage(base: PageBase, bytes: Buffer): Promise<Page> {
  const { finalUrl } = base;
  const pdf = await extractPdfText(bytes).catch((error: unknown) => {
    throw new PageReadError(`${finalUrl} is a PDF that could not be read: ${(error as Error).message}`);
  });
  const name = decodeURIComponent(new URL(finalUrl).pathname.split('/').pop() ?? '') || finalUrl;
  return {
    ...base,
    contentType: 'application/pdf',
    title: pdf.title ?? name,
    format: 'text',
    fullContent: pdf.text,
    links: [],
    pages: pdf.pages,
  };
}

/** The browser service's rendering of `url` as a page (or the part `selector` picks). */
function renderedPage(url: string, rendered: RenderedPage, selector: string | undefined): Page {
  if (rendered.status >= 400) throw new PageReadError(`${rendered.finalUrl} answered HTTP ${rendered.status}`);
  const extracted = extractPage(rendered.html, rendered.finalUrl);
  let selected: string | undefined;
  if (selector) {
    selected = selectContent(rendered.html, selector, rendered.finalUrl) ?? undefined;
    if (selected === undefined) {
      throw new PageReadError(`nothing on ${rendered.finalUrl} matches the selector "${selector}", even rendered`);
    }
  }
  return {
    url,
    finalUrl: rendered.finalUrl,
    contentType: rendered.contentType || 'text/html',
    title: extracted.title || rendered.title,
    byline: extracted.byline,
    siteName: extracted.siteName,
    format: selected === undefined ? 'markdown' : 'text',
    fullContent: selected ?? extracted.markdown,
    links: extracted.links,
    rendered: true,
  };
}

/** A FieldError's reason (without the field), any other error's message. */
const reasonOf = (error: unknown): string => (error instanceof FieldError ? error.reason : (error as Error).message);

function shape(page: Page, maxChars: number, cached: boolean): ReadPageResult {
  const { fullContent, ...rest } = page;
  const truncated = fullContent.length > maxChars;
  const content = truncated
    ? `${fullContent.slice(0, maxChars)}\n\n[… ${fullContent.length - maxChars} more characters not shown; ask with a larger maxChars]`
    : fullContent;
  const result: ReadPageResult = { ...rest, content, totalChars: fullContent.length, truncated, cached };
  for (const field of ['byline', 'siteName', 'note', 'pages'] as const) {
    if (result[field] === undefined) delete result[field];
  }
  return result;
}

/** The text of a body, in the charset its Content-Type or (for HTML) its <meta charset> names; UTF-8 otherwise. */
function decodeText(bytes: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(bytes.subarray(0, 4096).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** The URL as given (trimmed, normalised when it parses); the guard decides whether it may be fetched. */
function checkUrl(url: unknown): string {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new AssistantInputError('url', 'is required: the address of the page, e.g. https://example.com/article');
  }
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}

function checkMaxChars(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_MAX_CHARS;
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < MIN_MAX_CHARS || number > MAX_MAX_CHARS) {
    throw new AssistantInputError(
      'maxChars',
      `must be a whole number from ${MIN_MAX_CHARS} to ${MAX_MAX_CHARS}, not ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function checkFlag(value: unknown, field: string): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new AssistantInputError(field, `must be true or false, not ${JSON.stringify(value)}`);
}

function checkSelector(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.trim().length > 500) {
    throw new AssistantInputError('selector', 'must be a CSS selector of at most 500 characters');
  }
  return value.trim() || undefined;
}
