// A browser context whose every request goes through the outbound guard. Route interception takes each request the
// page makes (the document, frames, scripts, images, XHR/fetch, …) and answers it with the guard's fetch: checked
// (http(s) only, no private or loopback address unless allowed, never a protected endpoint), connected to the checked
// address only, with the body read within the context's byte budget. A refused request is aborted as blocked.
//
// Redirects: Chromium does not route the request a fulfilled redirect leads to, so redirects are never handed to it.
// A sub-resource's redirects are followed by the guard (each hop checked, its redirect limit applies). The main
// document's redirect is not fulfilled: the request is aborted and its target recorded (`redirectTo`) for the caller
// to navigate to, so the page's URL is the final one (see render.ts); its cookies are put into the jar (set-cookie.ts).
//
// Service workers are blocked (their requests bypass routing) and downloads refused. Issue 13's per-user profiles
// open their contexts through this same function.
import type { Browser, BrowserContext, BrowserContextOptions, Request, Route } from 'playwright-core';

import { OutboundRefusedError, type OutboundGuard } from '../outbound';
import { BodyTooLargeError, readBodyWithLimit } from '../outbound/body';
import { keepRedirectCookies } from './set-cookie';

export interface ContextLimits {
  /** The most bytes all responses of the context may total. */
  maxBytes: number;
}

/** What happened to the context's requests, for the caller to report. */
export interface LoadRecord {
  bytes: number;
  /** Requests refused by the guard (sub-resources are skipped, a refused document fails the render). */
  refused: string[];
  /** The last main-document redirect, not yet followed: where it points. */
  redirectTo: string | undefined;
  /** Why the last main document failed, when it did: refused, too large, not HTML or a fetch error. */
  documentFailure: { code: 'refused' | 'too_large' | 'not_html' | 'failed'; message: string } | undefined;
  /** The byte budget ran out: later responses were not loaded. */
  budgetExhausted: boolean;
}

export interface GuardedContext {
  context: BrowserContext;
  record: LoadRecord;
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Request headers the guard's connection sets itself (or that do not apply to it). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'accept-encoding',
]);
/** Response headers that no longer hold: the guard decoded the body, and Chromium gets it whole. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);
const DOCUMENT_TYPES = /^(text\/html|application\/xhtml\+xml)$/;

export async function openGuardedContext(
  browser: Browser,
  guard: OutboundGuard,
  limits: ContextLimits,
  signal: AbortSignal,
  contextOptions: BrowserContextOptions = {},
): Promise<GuardedContext> {
  const context = await browser.newContext({
    ...contextOptions,
    serviceWorkers: 'block',
    acceptDownloads: false,
  });
  const record: LoadRecord = {
    bytes: 0,
    refused: [],
    redirectTo: undefined,
    documentFailure: undefined,
    budgetExhausted: false,
  };

  const answer = async (route: Route): Promise<void> => {
    const request = route.request();
    const isDocument = isMainDocument(request);
    if (isDocument) {
      record.redirectTo = undefined;
      record.documentFailure = undefined;
    }
    if (signal.aborted) return void (await route.abort('timedout').catch(() => undefined));
    try {
      const response = await guard.fetch(request.url(), {
        method: request.method(),
        headers: await requestHeaders(request),
        body: request.postDataBuffer() ?? undefined,
        redirect: isDocument ? 'manual' : 'follow',
        signal,
      });
      const location = response.headers.get('location');
      if (isDocument && REDIRECT_STATUSES.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        // Chromium never sees this response: its cookies (a login's session, typically) go into the jar here.
        await keepRedirectCookies(context, response.headers.getSetCookie(), request.url());
        record.redirectTo = new URL(location, request.url()).href;
        return void (await route.abort('aborted').catch(() => undefined));
      }
      const type = (response.headers.get('content-type') ?? 'text/html').split(';')[0].trim().toLowerCase();
      if (isDocument && response.ok && !DOCUMENT_TYPES.test(type)) {
        await response.body?.cancel().catch(() => undefined);
        record.documentFailure = { code: 'not_html', message: `${request.url()} is ${type}, not an HTML page` };
        return void (await route.abort('aborted').catch(() => undefined));
      }
      const body = await readBodyWithLimit(response, Math.max(0, limits.maxBytes - record.bytes));
      record.bytes += body.length;
      await route.fulfill({ status: response.status, headers: responseHeaders(response.headers), body });
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        record.refused.push(error.reason);
        if (isDocument) record.documentFailure = { code: 'refused', message: error.reason };
        return void (await route.abort('blockedbyclient').catch(() => undefined));
      }
      if (error instanceof BodyTooLargeError) {
        record.budgetExhausted = true;
        if (isDocument) {
          record.documentFailure = { code: 'too_large', message: `${request.url()} is too large: ${error.message}` };
        }
      } else if (isDocument && !signal.aborted) {
        record.documentFailure = { code: 'failed', message: (error as Error).message };
      }
      await route.abort(signal.aborted ? 'timedout' : 'failed').catch(() => undefined);
    }
  };
  await context.route('**/*', answer);

  return {
    context,
    record,
    close: async () => {
      await context.close().catch(() => undefined);
    },
  };
}

function isMainDocument(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    return true; // a navigation issued before its frame exists: a popup's first document
  }
}

async function requestHeaders(request: Request): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(await request.allHeaders())) {
    if (name.startsWith(':') || DROPPED_REQUEST_HEADERS.has(name)) continue;
    headers[name] = value;
  }
  return headers;
}

/** The headers for Chromium: one value per name, Set-Cookie lines separated by newlines (as Playwright expects). */
function responseHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (DROPPED_RESPONSE_HEADERS.has(name) || name === 'set-cookie') return;
    out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies.join('\n');
  return out;
}
