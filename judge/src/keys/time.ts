// UTC calendar helpers for usage days, limit windows and the usage query's dates.

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The start (epoch ms) of the UTC minute holding `ms`. */
export const minuteStart = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

export const nextMinuteStart = (ms: number): number => minuteStart(ms) + MINUTE_MS;

/** YYYY-MM-DD of the UTC day holding `ms`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The last month monthStart computed, [start, next start): every request asks for the current one. */
let lastMonth = { start: 0, next: 0 };

/** The start (epoch ms) of the UTC month holding `ms`. */
export function monthStart(ms: number): number {
  if (ms >= lastMonth.start && ms < lastMonth.next) return lastMonth.start;
  const date = new Date(ms);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  if (Number.isFinite(start) && Number.isFinite(next)) lastMonth = { start, next };
  return start;
}

export function nextMonthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Epoch ms of a real calendar date written YYYY-MM-DD, or undefined (2026-02-30 is not one). */
export function parseDay(text: string): number | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return utcDay(ms) === text ? ms : undefined;
}

/** Whole days from `from` to `to`, both YYYY-MM-DD. */
export const daysBetween = (from: string, to: string): number => Math.round((parseDay(to)! - parseDay(from)!) / DAY_MS);
