// Per-key limits. The request rate is a token bucket in each server (per replica: N replicas allow up to N times the
// rate; a refused request is told its own place in line); tokens per minute and per month are checked against the
// counts the store shares between replicas. Tokens are counted when a request has been answered (the engine reports
// them then), so a key is refused once it has reached a limit; requests already admitted may pass it by their own
// tokens.
import { minuteStart, monthStart, nextMinuteStart, nextMonthStart } from './time';
import type { KeyLimits } from './types';

export type LimitName = 'rate' | 'tokensPerMinute' | 'monthlyTokens';

export interface Refusal {
  limit: LimitName;
  /** When a retry can succeed, in milliseconds from now (≥ 1). */
  retryAfterMs: number;
  /** A sentence for the 429's message. */
  message: string;
}

/** A key's token counts, as last read from the store plus this server's own usage since. */
export interface WindowCounts {
  /** Start (epoch ms) of the UTC month `monthTokens` counts. */
  month: number;
  monthTokens: number;
  /** Start (epoch ms) of the UTC minute `minuteTokens` counts. */
  minute: number;
  minuteTokens: number;
}

const seconds = (ms: number): string => `${Math.max(1, Math.ceil(ms / 1000))} s`;

/**
 * Token buckets for the request rate: capacity one second's worth (at least 1), refilled continuously. A refused
 * request gets its own place in line: the time its token will really be free, one interval after the place before
 * it, so refused clients do not all come back in the same instant. A request at or after the earliest place takes
 * that place's token; a newcomer before it gets a token only if every place still gets its own.
 */
export class RateBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number; places: number[] }>();

  /** Takes one request from the key's bucket; when it may not, the milliseconds until its place in line. */
  take(keyId: string, ratePerSecond: number, now: number): number | undefined {
    const capacity = Math.max(1, ratePerSecond);
    const interval = 1000 / ratePerSecond;
    const bucket = this.buckets.get(keyId) ?? { tokens: capacity, at: now, places: [] };
    bucket.tokens = Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.at) * ratePerSecond) / 1000);
    bucket.at = now;
    this.buckets.set(keyId, bucket);
    // A place nobody came back for is given up (the client stopped retrying).
    const forgotten = Math.max(1000, 2 * interval);
    bucket.places = bucket.places.filter((place) => place + forgotten > now);
    // (float noise in the refill must not add a millisecond: a hair below 1 counts as 1)
    const hasToken = bucket.tokens >= 1 - 1e-9;
    const due = bucket.places.length > 0 && bucket.places[0] <= now;
    const spare = bucket.places.every(
      (place, index) => bucket.tokens - 1 + ((place - now) * ratePerSecond) / 1000 >= index + 1 - 1e-9,
    );
    if (hasToken && (due || spare)) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      if (due) bucket.places.shift();
      return undefined;
    }
    const free = now + Math.max(1, Math.ceil(((1 - bucket.tokens) * 1000) / ratePerSecond - 1e-6));
    const place = Math.max(free, (bucket.places.at(-1) ?? -Infinity) + Math.ceil(interval));
    bucket.places.push(place);
    return place - now;
  }
}

/** The first limit a request would break now (token limits first: they take nothing from the rate bucket). */
export function checkLimits(
  keyId: string,
  limits: KeyLimits,
  counts: WindowCounts,
  buckets: RateBuckets,
  now: number,
): Refusal | undefined {
  const minuteTokens = counts.minute === minuteStart(now) ? counts.minuteTokens : 0;
  if (limits.tokensPerMinute !== undefined && minuteTokens >= limits.tokensPerMinute) {
    const retryAfterMs = Math.max(1, nextMinuteStart(now) - now);
    return {
      limit: 'tokensPerMinute',
      retryAfterMs,
      message:
        `This API key has used its ${limits.tokensPerMinute} input tokens per minute; ` +
        `try again in ${seconds(retryAfterMs)}.`,
    };
  }
  const monthTokens = counts.month === monthStart(now) ? counts.monthTokens : 0;
  if (limits.monthlyTokens !== undefined && monthTokens >= limits.monthlyTokens) {
    const reset = nextMonthStart(now);
    return {
      limit: 'monthlyTokens',
      retryAfterMs: Math.max(1, reset - now),
      message:
        `This API key has used its ${limits.monthlyTokens} input tokens for this month; ` +
        `the limit resets at ${new Date(reset).toISOString()}.`,
    };
  }
  if (limits.ratePerSecond !== undefined) {
    const retryAfterMs = buckets.take(keyId, limits.ratePerSecond, now);
    if (retryAfterMs !== undefined) {
      return {
        limit: 'rate',
        retryAfterMs,
        message:
          `This API key is limited to ${limits.ratePerSecond} requests per second; ` +
          `retry after ${retryAfterMs} ms.`,
      };
    }
  }
  return undefined;
}
