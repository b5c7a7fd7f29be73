// A session's actions on its page, by the refs of the last snapshot (snapshot.ts): typing into a field, clicking,
// choosing an option. A click or a choice may start a navigation (a form sent, a link, a script moving on): it is
// followed as a render loads a page — the document's redirects through the guard (render.ts's navigate), its load,
// time for its scripts. Errors are ServiceErrors (naming the field) or RenderErrors from loading.
import type { BrowserContext, Frame, Page, Request } from 'playwright-core';

import type { LoadRecord } from './guarded-context';
import { afterLoad, DEFAULT_SETTLE_MS, firstLine, navigate, RenderError, settle, type LoadLimits } from './render';
import { ServiceError } from './service-error';
import { refSelector, SECRET_ATTRIBUTE } from './snapshot';
import { TIMED_OUT, within } from './time-limit';

/** The page a step acts on, with its context (popups included) and the guard's record of what it loaded. */
export interface StepTarget {
  context: BrowserContext;
  page: Page;
  record: LoadRecord;
}

interface ElementInfo {
  kind: 'text' | 'password' | 'select' | 'toggle' | 'button' | 'other';
  /** For messages: input type or tag. */
  what: string;
  disabled: boolean;
  readOnly: boolean;
  options: Array<{ label: string; value: string; disabled: boolean }> | null;
}

/** How long one action (typing, a click) may wait for its element to be ready, at most. */
const ACTION_MS = 10_000;
/** After typing or choosing: a moment for the page's scripts (validation messages, fields that appear). */
const AFTER_INPUT_SETTLE_MS = 300;
/** How long a click is given to start a navigation (a form's submit starts at once; a script may take a moment). */
const NAVIGATION_START_MS = 500;
/** How long a document that answered may take to show its DOM; longer (a 204, a download) counts as no page. */
const DOCUMENT_READY_MS = 10_000;
/** Navigations one action follows (a page that moves on by script once or twice). */
const MAX_ROUNDS = 4;
const MAX_LISTED_OPTIONS = 10;

const DESCRIBE_SCRIPT = `({ selector }) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  let kind = 'other';
  if (tag === 'select') kind = 'select';
  else if (tag === 'textarea' || (tag !== 'input' && el.isContentEditable)) kind = 'text';
  else if (tag === 'input') {
    if (['button', 'submit', 'reset', 'image'].includes(type)) kind = 'button';
    else if (type === 'checkbox' || type === 'radio') kind = 'toggle';
    else if (type === 'password') kind = 'password';
    else if (!['file', 'range', 'color'].includes(type)) kind = 'text';
  } else if (tag === 'button' || tag === 'a') kind = 'button';
  return {
    kind,
    what: tag === 'input' ? type + ' field' : tag === 'a' ? 'link' : tag,
    disabled: el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true',
    readOnly: !!el.readOnly,
    options: tag === 'select'
      ? Array.from(el.options).map((o) => ({ label: o.label.replace(/\\s+/g, ' ').trim(), value: o.value, disabled: o.disabled }))
      : null,
  };
}`;

async function describe(page: Page, ref: number): Promise<ElementInfo> {
  const info = (await page.evaluate(
    `(${DESCRIBE_SCRIPT})(${JSON.stringify({ selector: refSelector(ref) })})`,
  )) as ElementInfo | null;
  if (info === null) {
    throw new ServiceError(
      'unknown_ref',
      `there is no element ${ref} on the page now (it changed since the snapshot): take a new snapshot and use its refs`,
      'ref',
    );
  }
  return info;
}

const usable = (info: ElementInfo, ref: number): void => {
  if (info.disabled) throw new ServiceError('invalid_request', `element ${ref} is disabled`, 'ref');
};

/** Types `value` into a field (cleared first); a secret is typed only into a page of `sites`. */
export async function fillField(
  page: Page,
  ref: number,
  input: { value: string; secret: boolean; sites?: string[] },
  remaining: () => number,
): Promise<{ password: boolean }> {
  const info = await describe(page, ref);
  if (info.kind !== 'text' && info.kind !== 'password') {
    const instead = info.kind === 'select' ? ': use select' : info.kind === 'other' ? '' : ': click it';
    throw new ServiceError('invalid_request', `element ${ref} is a ${info.what}, not a text field${instead}`, 'ref');
  }
  usable(info, ref);
  if (info.readOnly) throw new ServiceError('invalid_request', `element ${ref} is read-only`, 'ref');
  if (input.secret && input.sites) {
    const origin = originOf(page.url());
    if (!input.sites.some((site) => originOf(site) === origin)) {
      throw new ServiceError(
        'refused',
        `this page (${origin}) is not one of the sites this secret is for (${input.sites.join(', ')}); it was not typed`,
        'sites',
      );
    }
  }
  await act(
    page.locator(refSelector(ref)).fill(input.value, { timeout: actionMs(remaining) }),
    ref,
    'typed into',
    remaining,
  );
  if (input.secret) {
    const mark = `document.querySelector(${JSON.stringify(refSelector(ref))})?.setAttribute('${SECRET_ATTRIBUTE}', '')`;
    await page.evaluate(mark);
  }
  await settle(page, Math.min(AFTER_INPUT_SETTLE_MS, remaining()));
  return { password: info.kind === 'password' };
}

/** Clicks the element (a checkbox or radio toggles) and follows the navigation it starts; the pages it loaded. */
export async function clickElement(
  target: StepTarget,
  ref: number,
  limits: LoadLimits,
  remaining: () => number,
): Promise<number> {
  usable(await describe(target.page, ref), ref);
  const click = () => target.page.locator(refSelector(ref)).click({ timeout: actionMs(remaining) });
  return await withNavigation(target, () => act(click(), ref, 'clicked', remaining), limits, remaining);
}

/** Chooses a select's option by its label (or value); the pages a navigation it starts loaded. */
export async function selectOption(
  target: StepTarget,
  ref: number,
  option: string,
  limits: LoadLimits,
  remaining: () => number,
): Promise<number> {
  const info = await describe(target.page, ref);
  if (info.kind !== 'select' || !info.options) {
    throw new ServiceError(
      'invalid_request',
      `element ${ref} is a ${info.what}, not a select: click it instead`,
      'ref',
    );
  }
  usable(info, ref);
  const index = optionIndex(info.options, option);
  if (index < 0) {
    const labels = info.options.slice(0, MAX_LISTED_OPTIONS).map((o) => JSON.stringify(o.label));
    const more = info.options.length > MAX_LISTED_OPTIONS ? `, … (${info.options.length} in all)` : '';
    throw new ServiceError(
      'invalid_request',
      `element ${ref} has no option "${option}"; its options: ${labels.join(', ')}${more}`,
      'option',
    );
  }
  if (info.options[index].disabled) {
    throw new ServiceError('invalid_request', `the option "${option}" of element ${ref} is disabled`, 'option');
  }
  const choose = () => target.page.locator(refSelector(ref)).selectOption({ index }, { timeout: actionMs(remaining) });
  return await withNavigation(target, () => act(choose(), ref, 'set', remaining), limits, remaining, {
    settleWithoutNavigationMs: AFTER_INPUT_SETTLE_MS,
  });
}

/** The option's label exactly, else its value, else its label in any case. */
function optionIndex(options: Array<{ label: string; value: string }>, wanted: string): number {
  const label = wanted.replace(/\s+/g, ' ').trim();
  const exact = options.findIndex((o) => o.label === label);
  if (exact >= 0) return exact;
  const byValue = options.findIndex((o) => o.value === wanted);
  if (byValue >= 0) return byValue;
  return options.findIndex((o) => o.label.toLowerCase() === label.toLowerCase());
}

/**
 * Runs `action`, then follows the navigation it started, if any (in a popup too); without one, gives the page's
 * scripts time to react (a page load's time by default). Returns how many pages were loaded.
 */
async function withNavigation(
  target: StepTarget,
  action: () => Promise<void>,
  limits: LoadLimits,
  remaining: () => number,
  { settleWithoutNavigationMs = limits.settleMs ?? DEFAULT_SETTLE_MS } = {},
): Promise<number> {
  const watcher = new NavigationWatcher(target.context);
  try {
    await action();
    await watcher.waitForStart(Math.min(NAVIGATION_START_MS, remaining()));
    let loaded = 0;
    let settled = false;
    for (let round = 0; round < MAX_ROUNDS && remaining() > 0; round++) {
      const navigation = watcher.take();
      if (navigation) {
        if (await follow(navigation, target.record, limits, remaining, watcher)) {
          loaded += 1;
          settled = true;
        }
      } else if (settled) {
        break;
      } else {
        await settle(target.page, Math.min(settleWithoutNavigationMs, remaining()));
        settled = true;
      }
    }
    return loaded;
  } finally {
    watcher.stop();
  }
}

interface Navigation {
  request: Request;
  /** The page it loads into: known at once, or a moment later for a popup's first document. */
  page: Promise<Page | undefined>;
  /** Resolves when that page's new document has its DOM. */
  domReady: Promise<unknown>;
  popup: boolean;
}

/** Notes the main-frame navigations of a context's pages (popups included) while an action runs. */
class NavigationWatcher {
  private latest: Navigation | undefined;
  private paused = false;
  private wake: (() => void) | undefined;

  constructor(private readonly context: BrowserContext) {
    context.on('request', this.onRequest);
  }

  private readonly onRequest = (request: Request): void => {
    if (this.paused || !request.isNavigationRequest()) return;
    let frame: Frame | undefined;
    try {
      frame = request.frame();
    } catch {
      frame = undefined; // issued before its frame exists: a popup's first document
    }
    if (frame && frame.parentFrame() !== null) return;
    if (frame) {
      const page = frame.page();
      const domReady = new Promise<void>((resolve) => page.once('domcontentloaded', () => resolve()));
      this.latest = { request, page: Promise.resolve(page), domReady, popup: false };
    } else {
      const popup = this.context.waitForEvent('page', { timeout: DOCUMENT_READY_MS }).catch(() => undefined);
      const domReady = popup.then((page) => page?.waitForLoadState('domcontentloaded').catch(() => undefined));
      this.latest = { request, page: popup, domReady, popup: true };
    }
    this.wake?.();
  };

  /** Until a navigation started, at most `ms`. */
  async waitForStart(ms: number): Promise<void> {
    if (this.latest) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  take(): Navigation | undefined {
    const navigation = this.latest;
    this.latest = undefined;
    return navigation;
  }

  /** While the step navigates itself (following a redirect), its requests are its own. */
  async aside<T>(work: () => Promise<T>): Promise<T> {
    this.paused = true;
    try {
      return await work();
    } finally {
      this.paused = false;
    }
  }

  stop(): void {
    this.context.off('request', this.onRequest);
  }
}

/** Follows one navigation: the document answered (then its DOM is waited for), or was redirected (then followed). */
async function follow(
  navigation: Navigation,
  record: LoadRecord,
  limits: LoadLimits,
  remaining: () => number,
  watcher: NavigationWatcher,
): Promise<boolean> {
  const url = navigation.request.url();
  const response = await within(navigation.request.response(), remaining());
  if (response === TIMED_OUT) throw new RenderError('timeout', `${url} did not answer within the time limit`);
  const page = await within(navigation.page, Math.min(DOCUMENT_READY_MS, remaining()));
  if (page === TIMED_OUT || page === undefined) return false;
  if (response === null) {
    // Aborted by the guard (a redirect to follow, or a refusal), or stopped by the page or another navigation.
    const failure = record.documentFailure;
    const next = record.redirectTo;
    if (failure || next === undefined) {
      if (navigation.popup) await page.close().catch(() => undefined); // a popup with nothing in it
      if (failure) throw new RenderError(failure.code, failure.message);
      return false;
    }
    if (limits.maxRedirects === 0) {
      throw new RenderError('refused', `${url} redirects more than 0 times; the redirects were stopped`);
    }
    await watcher.aside(() => navigate(page, next, record, { maxRedirects: limits.maxRedirects - 1 }, remaining));
  } else if ((await within(navigation.domReady, Math.min(DOCUMENT_READY_MS, remaining()))) === TIMED_OUT) {
    return false;
  }
  await afterLoad(page, limits, remaining);
  return true;
}

const actionMs = (remaining: () => number): number => Math.max(1, Math.min(ACTION_MS, remaining()));

/** An action's Playwright error as the service's. */
async function act(work: Promise<unknown>, ref: number, done: string, remaining: () => number): Promise<void> {
  try {
    await work;
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/Cannot type text into|Malformed value/i.test(message)) {
      throw new ServiceError(
        'invalid_request',
        `element ${ref} does not take that value: ${firstLine(error)}`,
        'value',
      );
    }
    if (remaining() === 0) throw new ServiceError('timeout', `element ${ref} could not be ${done} in time`);
    const covered = /intercepts pointer events/.test(message) ? ' (another element covers it: close that first)' : '';
    throw new ServiceError('failed', `element ${ref} could not be ${done}: ${firstLine(error)}${covered}`);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
