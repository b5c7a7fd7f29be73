// What a check watches, read from the agent's add_check input: a URL is a page, a feed (`kind: feed`) or a JSON
// endpoint (a `path` given); anything else is a search query. Every problem is a sentence naming the field.
import { AssistantInputError } from '../errors';
import { optionalText, requireText } from '../validate';
import { parseJsonPath } from './json-path';

export const CHECK_KINDS = ['page', 'feed', 'search', 'json'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];
export const CHECK_CONDITIONS = ['changed', 'above', 'below'] as const;
export type CheckCondition = (typeof CHECK_CONDITIONS)[number];

/** A Judge gate decides "worth telling" at this probability unless the check sets its own. */
export const DEFAULT_NOTIFY_THRESHOLD = 0.5;

export interface CheckDefinition {
  what: string;
  kind: CheckKind;
  /** The URL (page, feed, json) or the search query. */
  target: string;
  selector: string | null;
  path: string | null;
  condition: CheckCondition;
  threshold: number | null;
  notifyWhen: string | null;
  notifyThreshold: number;
}

export interface CheckDefinitionInput {
  what?: unknown;
  kind?: unknown;
  url?: unknown;
  selector?: unknown;
  path?: unknown;
  condition?: unknown;
  threshold?: unknown;
  notifyWhen?: unknown;
  notifyThreshold?: unknown;
}

const blank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && !value.trim());

function optionalNumber(value: unknown, field: string): number | null {
  if (blank(value)) return null;
  const number = typeof value === 'string' ? Number(value.trim().replace(/,/g, '')) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw new AssistantInputError(field, `must be a number, not ${JSON.stringify(value)}`);
  }
  return number;
}

function optionalChoice<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | null {
  if (blank(value)) return null;
  const text = String(value).trim().toLowerCase() as T;
  if (!allowed.includes(text)) {
    throw new AssistantInputError(field, `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
  }
  return text;
}

/** The URL in `text` when the whole of it is one (after trimming), else null. */
function urlOf(text: string): URL | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /\s/.test(text)) return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** Reads and checks a definition; throws an AssistantInputError naming the field. */
export function readCheckDefinition(input: CheckDefinitionInput): CheckDefinition {
  const what = requireText(input.what, 'what', 2000).trim();
  const explicitUrl = blank(input.url) ? null : requireText(input.url, 'url', 2000).trim();
  let kind = optionalChoice(input.kind, 'kind', CHECK_KINDS);
  const selector = blank(input.selector) ? null : optionalText(input.selector, 'selector', 500)!.trim();
  const path = blank(input.path) ? null : optionalText(input.path, 'path', 500)!.trim();
  const threshold = optionalNumber(input.threshold, 'threshold');
  let condition = optionalChoice(input.condition, 'condition', CHECK_CONDITIONS);
  const notifyWhen = blank(input.notifyWhen) ? null : optionalText(input.notifyWhen, 'notify_when', 1000)!.trim();
  const notifyThreshold = optionalNumber(input.notifyThreshold, 'notify_threshold') ?? DEFAULT_NOTIFY_THRESHOLD;
  if (notifyThreshold < 0 || notifyThreshold > 1) {
    throw new AssistantInputError('notify_threshold', `must be a probability from 0 to 1, not ${notifyThreshold}`);
  }

  const candidate = explicitUrl ?? what;
  const url = urlOf(candidate);
  if (explicitUrl && !url) throw new AssistantInputError('url', `must be a full http(s) URL, not ${explicitUrl}`);
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AssistantInputError(
      explicitUrl ? 'url' : 'what',
      `only http and https addresses can be checked, not ${url.protocol.replace(/:$/, '')}:`,
    );
  }
  if (!kind) kind = url ? (path ? 'json' : 'page') : 'search';
  if (kind === 'search') {
    if (url) throw new AssistantInputError('kind', 'a search check takes a query, not a URL');
    if (what.length > 400) throw new AssistantInputError('what', 'a search query must be at most 400 characters');
  } else if (!url) {
    throw new AssistantInputError(
      explicitUrl ? 'url' : 'what',
      `a ${kind} check needs the http(s) URL to watch (in what or url), e.g. https://example.com/${kind === 'feed' ? 'feed.xml' : kind === 'json' ? 'api/price' : 'news'}`,
    );
  }
  if (selector && kind !== 'page') throw new AssistantInputError('selector', `applies to page checks, not ${kind}`);
  if (kind === 'json') {
    if (!path) throw new AssistantInputError('path', 'a JSON check needs the path of the value, e.g. data.price');
    parseJsonPath(path);
  } else if (path) {
    throw new AssistantInputError('path', `applies to JSON checks, not ${kind}`);
  }
  if (!condition) condition = 'changed';
  if (condition !== 'changed') {
    if (kind !== 'json') throw new AssistantInputError('condition', `${condition} applies to JSON values only`);
    if (threshold === null) {
      throw new AssistantInputError('threshold', `is required with condition ${condition}: the number to compare with`);
    }
  } else if (threshold !== null) {
    throw new AssistantInputError('threshold', 'applies with condition above or below only');
  }
  return {
    what,
    kind,
    target: kind === 'search' ? what : url!.href,
    selector,
    path,
    condition,
    threshold,
    notifyWhen,
    notifyThreshold,
  };
}

/** How a check reads in a list: "the page https://…", "new results for …", "data.price at https://… above 50". */
export function describeCheckTarget(
  check: Pick<CheckDefinition, 'kind' | 'target' | 'selector' | 'path' | 'condition' | 'threshold'>,
): string {
  switch (check.kind) {
    case 'page':
      return `the page ${check.target}${check.selector ? ` (${check.selector})` : ''}`;
    case 'feed':
      return `new items in the feed ${check.target}`;
    case 'search':
      return `new results for "${check.target}"`;
    case 'json': {
      const when =
        check.condition === 'changed' ? 'when it changes' : `when it goes ${check.condition} ${check.threshold}`;
      return `${check.path} at ${check.target}, ${when}`;
    }
  }
}
