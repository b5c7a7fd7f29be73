// Usage reports: per key and UTC day, requests and input tokens, with the cost at the configured price.
import { DEFAULT_PRICE, type Price } from './config';
import { daysBetween, parseDay, utcDay, monthStart } from './time';
import { addUpstreamTokens, noUpstreamTokens, type UpstreamTokens, type UsageRow } from './types';

/** The widest range one report covers. */
export const MAX_REPORT_DAYS = 366;

/**
 * What the upstream model server reported for the calls behind these requests: the operator's cost there, not
 * priced (`cost` is the judge's own price on `input_tokens`). Present when any were recorded.
 */
export interface UpstreamTokenCounts {
  prompt_tokens: number;
  /** The part of prompt_tokens its prefix cache served. */
  cached_tokens: number;
  output_tokens: number;
}

export interface UsageDay {
  date: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  upstream_tokens?: UpstreamTokenCounts;
}

export interface UsageTotal {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  upstream_tokens?: UpstreamTokenCounts;
}

const upstreamCounts = (tokens: UpstreamTokens): UpstreamTokenCounts => ({
  prompt_tokens: tokens.promptTokens,
  cached_tokens: tokens.cachedTokens,
  output_tokens: tokens.outputTokens,
});

/** GET /v1/usage's answer. */
export interface UsageReport {
  key: { id: string; name: string };
  from: string;
  to: string;
  price: { currency: string; input_per_million: number; output_per_million: number };
  days: UsageDay[];
  total: UsageTotal;
}

/** Cost of some tokens, rounded to 1e-12 so sums of small amounts print cleanly. */
export function costOf(price: Price, inputTokens: number, outputTokens = 0): number {
  const cost = (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1e6;
  return Math.round(cost * 1e12) / 1e12;
}

export function usageDay(row: UsageRow, price: Price): UsageDay {
  return {
    date: row.day,
    requests: row.requests,
    input_tokens: row.inputTokens,
    output_tokens: 0,
    cost: costOf(price, row.inputTokens),
    ...(row.upstream ? { upstream_tokens: upstreamCounts(row.upstream) } : {}),
  };
}

export function usageTotal(rows: UsageRow[], price: Price): UsageTotal {
  const requests = rows.reduce((sum, r) => sum + r.requests, 0);
  const inputTokens = rows.reduce((sum, r) => sum + r.inputTokens, 0);
  const total: UsageTotal = { requests, input_tokens: inputTokens, output_tokens: 0, cost: costOf(price, inputTokens) };
  const upstream = rows.filter((r) => r.upstream);
  if (upstream.length > 0) {
    total.upstream_tokens = upstreamCounts(
      upstream.reduce((sum, r) => addUpstreamTokens(sum, r.upstream!), noUpstreamTokens()),
    );
  }
  return total;
}

export function usageReport(
  key: { id: string; name: string },
  range: { from: string; to: string },
  rows: UsageRow[],
  price: Price = DEFAULT_PRICE,
): UsageReport {
  return {
    key,
    ...range,
    price: {
      currency: price.currency,
      input_per_million: price.inputPerMillion,
      output_per_million: price.outputPerMillion,
    },
    days: rows.map((row) => usageDay(row, price)),
    total: usageTotal(rows, price),
  };
}

/**
 * The inclusive date range of a report: `to` defaults to today (UTC), `from` to the first day of `to`'s month.
 * Returns a sentence naming the parameter when one is wrong.
 */
export function usageRange(
  from: string | undefined,
  to: string | undefined,
  now: number,
  names: { from: string; to: string } = { from: 'from', to: 'to' },
): { from: string; to: string } | { problem: string } {
  const end = to ?? utcDay(now);
  const range = { from: from ?? utcDay(monthStart(parseDay(end) ?? now)), to: end };
  for (const side of ['from', 'to'] as const) {
    if (parseDay(range[side]) === undefined) {
      return { problem: `${names[side]} must be a date written YYYY-MM-DD, got ${JSON.stringify(range[side])}.` };
    }
  }
  if (range.from > range.to) return { problem: `${names.from} (${range.from}) is after ${names.to} (${range.to}).` };
  if (daysBetween(range.from, range.to) >= MAX_REPORT_DAYS) {
    return { problem: `${names.from}..${names.to} spans more than ${MAX_REPORT_DAYS} days; ask for a shorter range.` };
  }
  return range;
}
