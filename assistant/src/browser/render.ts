// One render: a fresh guarded context on the shared Chromium, the page loaded (main-document redirects followed here,
// each checked, with a limit and loop detection), time for its scripts to put the content in, then the DOM as HTML.
// The context is closed afterwards, whatever happened. The loading part (navigate, loadPage, settle) is shared with
// the per-user sessions (sessions.ts).
import type { Browser, Page, Response } from 'playwright-core';

import type { OutboundGuard } from '../outbound';
import { formatBytes } from '../outbound/body';
import { openGuardedContext, type GuardedContext, type LoadRecord } from './guarded-context';
import type { BrowserErrorCode, RenderedPage } from './protocol';

export class RenderError extends Error {
  constructor(
    readonly code: BrowserErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

export interface LoadLimits {
  maxRedirects: number;
  /** The longest the `load` event (all of the page's sub-resources) is waited for; the time left by default. */
  loadMs?: number;
  /** The longest the page is given, after it loaded, for its scripts to show content; 5 s by default. */
  settleMs?: number;
}

export interface Loaded {
  /** The final document's response (null when Chromium gave none, e.g. for about:blank). */
  response: Response | null;
  redirects: number;
}

export interface RenderLimits extends LoadLimits {
  /** When the render must be done (ms since the epoch); queueing before it counts. */
  deadline: number;
  maxBytes: number;
}

/**
 * Once the page has loaded: wait until it shows enough text (as much as read_page takes for a page that does not
 * need JavaScript) and the DOM has been still for a moment, or until it has been still for longer, or settleMs.
 */
const ENOUGH_TEXT_CHARS = 200;
const STILL_WITH_TEXT_MS = 200;
const STILL_WITHOUT_TEXT_MS = 1_500;
export const DEFAULT_SETTLE_MS = 5_000;
const MAX_REFUSAL_EXAMPLES = 5;
/** How long after its deadline a render (or a session's step) that gets no answer from its page is abandoned. */
export const HUNG_GRACE_MS = 2_000;

export async function renderPage(
  browser: Browser,
  guard: OutboundGuard,
  url: string,
  limits: RenderLimits,
): Promise<RenderedPage> {
  const remaining = () => Math.max(0, limits.deadline - Date.now());
  if (remaining() === 0) throw new RenderError('timeout', `${url} could not be rendered in time (the queue was long)`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), remaining());
  const guarded = await openGuardedContext(browser, guard, { maxBytes: limits.maxBytes }, controller.signal);
  try {
    return await unlessHung(loadAndRead(guarded, url, limits, remaining), remaining(), `${url} stopped responding`);
  } catch (error) {
    if (error instanceof RenderError) throw error;
    if (controller.signal.aborted || remaining() === 0) {
      throw new RenderError('timeout', `${url} did not finish loading within the time limit`);
    }
    throw new RenderError('failed', `${url} could not be rendered: ${firstLine(error)}`);
  } finally {
    clearTimeout(timer);
    await guarded.close();
  }
}

async function loadAndRead(
  guarded: GuardedContext,
  url: string,
  limits: RenderLimits,
  remaining: () => number,
): Promise<RenderedPage> {
  const page = await guarded.context.newPage();
  const { response, redirects } = await loadPage(page, url, guarded.record, limits, remaining);
  // The size is asked first, so a page that grew huge by script is not copied over to be refused.
  const chars = Number(await page.evaluate('document.documentElement ? document.documentElement.outerHTML.length : 0'));
  const html = chars > limits.maxBytes ? '' : await page.content();
  if (chars > limits.maxBytes || Buffer.byteLength(html) > limits.maxBytes) {
    throw new RenderError('too_large', `${url} is too large once rendered (over ${formatBytes(limits.maxBytes)})`);
  }
  return {
    url,
    finalUrl: page.url(),
    status: response?.status() ?? 200,
    contentType: ((await response?.headerValue('content-type')) ?? 'text/html').split(';')[0].trim(),
    title: await page.title(),
    html,
    redirects,
    refused: {
      count: guarded.record.refused.length,
      examples: guarded.record.refused.slice(0, MAX_REFUSAL_EXAMPLES),
    },
  };
}

/**
 * Loads `url` into `page` as a render does: the document (its redirects followed through the guard), its `load`
 * event, then time for its scripts (`settle`). Sessions load their pages with this too.
 */
export async function loadPage(
  page: Page,
  url: string,
  record: LoadRecord,
  limits: LoadLimits,
  remaining: () => number,
): Promise<Loaded> {
  const loaded = await navigate(page, url, record, limits, remaining);
  await afterLoad(page, limits, remaining);
  return loaded;
}

/** Once a document is in: its `load` event, then time for its scripts; within the time left, never throws. */
export async function afterLoad(page: Page, limits: LoadLimits, remaining: () => number): Promise<void> {
  const loadMs = Math.min(limits.loadMs ?? Infinity, remaining());
  if (loadMs > 0) await page.waitForLoadState('load', { timeout: loadMs }).catch(() => undefined);
  await settle(page, Math.min(limits.settleMs ?? DEFAULT_SETTLE_MS, remaining()));
}

/**
 * Navigates to `url`, following main-document redirects (each one through the guard again, see guarded-context.ts),
 * with `maxRedirects` and loop detection. Throws RenderErrors: refused, too_large, not_html, timeout, failed.
 */
export async function navigate(
  page: Page,
  url: string,
  record: LoadRecord,
  limits: Pick<LoadLimits, 'maxRedirects'>,
  remaining: () => number,
): Promise<Loaded> {
  const visited = new Set<string>();
  let current = url;
  for (let redirects = 0; ; redirects++) {
    visited.add(current);
    try {
      const response = await page.goto(current, { waitUntil: 'domcontentloaded', timeout: remaining() || 1 });
      return { response, redirects };
    } catch (error) {
      const failure = record.documentFailure;
      if (failure) throw new RenderError(failure.code, failure.message);
      const next = record.redirectTo;
      if (next === undefined) {
        if (remaining() === 0) throw new RenderError('timeout', `${url} did not answer within the time limit`);
        throw new RenderError('failed', `${current} could not be loaded: ${firstLine(error)}`);
      }
      if (visited.has(next)) {
        throw new RenderError('refused', `${url} redirects in a loop (${current} sends back to ${next})`);
      }
      if (redirects + 1 > limits.maxRedirects) {
        throw new RenderError(
          'refused',
          `${url} redirects more than ${limits.maxRedirects} times; the redirects were stopped`,
        );
      }
      current = next;
    }
  }
}

/** Runs in the page: resolves once it shows enough text and was still briefly, was still for longer, or at max. */
const SETTLE_SCRIPT = `({ enough, stillWithText, stillWithout, max }) => new Promise((resolve) => {
  const start = performance.now();
  let lastChange = start;
  const observer = new MutationObserver(() => (lastChange = performance.now()));
  observer.observe(document, { subtree: true, childList: true, characterData: true });
  const check = () => {
    const now = performance.now();
    const text = document.body ? document.body.innerText.length : 0;
    const still = now - lastChange;
    if ((text >= enough && still >= stillWithText) || still >= stillWithout || now - start >= max) {
      observer.disconnect();
      resolve();
    } else setTimeout(check, 50);
  };
  check();
})`;

/** Gives the page's scripts time to put their content in (see the constants above); never throws. */
export async function settle(page: Page, maxMs: number): Promise<void> {
  if (maxMs <= 0) return;
  const args = {
    enough: ENOUGH_TEXT_CHARS,
    stillWithText: STILL_WITH_TEXT_MS,
    stillWithout: STILL_WITHOUT_TEXT_MS,
    max: maxMs,
  };
  // The page navigated away or closed meanwhile: take it as it is.
  await page.evaluate(`(${SETTLE_SCRIPT})(${JSON.stringify(args)})`).catch(() => undefined);
}

/**
 * `work`, or a `timeout` RenderError HUNG_GRACE_MS after `deadlineMs` from now. A page can hang its own renderer (an
 * endless loop in a script): then nothing it is asked ever answers, whatever the time limits passed to Playwright.
 * The caller then closes the context, which ends the renderer.
 */
export async function unlessHung<T>(work: Promise<T>, deadlineMs: number, what: string): Promise<T> {
  let giveUp: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    giveUp = setTimeout(
      () => reject(new RenderError('timeout', `${what} (a script that does not end?)`)),
      deadlineMs + HUNG_GRACE_MS,
    );
  });
  work.catch(() => undefined); // abandoned when hung: its later failure is nobody's
  try {
    return await Promise.race([work, hung]);
  } finally {
    clearTimeout(giveUp);
  }
}

export const firstLine = (error: unknown): string => ((error as Error).message ?? String(error)).split('\n')[0];
