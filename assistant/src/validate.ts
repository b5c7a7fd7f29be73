// Input checks shared by the stores. Every failure names the field it is about.
import { AssistantInputError } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUserId(value: unknown, field = 'userId'): string {
  if (typeof value !== 'string' || !UUID.test(value.trim())) {
    throw new AssistantInputError(field, 'must be the user id (a UUID) returned by Resolve Identity');
  }
  return value.trim().toLowerCase();
}

export function requireText(value: unknown, field: string, maxLength = 1_000_000): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AssistantInputError(field, 'must be a non-empty string');
  }
  if (value.length > maxLength) throw new AssistantInputError(field, `must be at most ${maxLength} characters`);
  if (value.includes('\u0000')) throw new AssistantInputError(field, 'must not contain NUL characters');
  return value;
}

export function optionalText(value: unknown, field: string, maxLength = 100_000): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AssistantInputError(field, 'must be a string');
  if (value.length > maxLength) throw new AssistantInputError(field, `must be at most ${maxLength} characters`);
  if (value.includes('\u0000')) throw new AssistantInputError(field, 'must not contain NUL characters');
  return value;
}

export function requirePositiveInt(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw new AssistantInputError(field, 'must be a positive integer id');
  }
  return n;
}

export function optionalInt(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new AssistantInputError(field, `must be an integer from ${min} to ${max}`);
  }
  return n;
}

export function optionalEnum<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new AssistantInputError(field, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** Accepts an array of strings or a comma-separated string; trims, drops empties and duplicates. */
export function stringList(value: unknown, field: string, maxItems = 50, maxLength = 200): string[] {
  if (value === undefined || value === null || value === '') return [];
  const raw = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(raw)) throw new AssistantInputError(field, 'must be a list of strings (or comma-separated text)');
  const out: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string') throw new AssistantInputError(field, 'must contain only strings');
    const trimmed = item.trim();
    if (trimmed === '') continue;
    if (trimmed.length > maxLength)
      throw new AssistantInputError(field, `items must be at most ${maxLength} characters`);
    if (!out.includes(trimmed)) out.push(trimmed);
  }
  if (out.length > maxItems) throw new AssistantInputError(field, `must have at most ${maxItems} items`);
  return out;
}

/** An ISO 8601 timestamp (with a zone or offset), or null to clear. Undefined means "not given". */
export function optionalTimestamp(value: unknown, field: string): Date | null | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === null) return null;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value.trim())
  ) {
    throw new AssistantInputError(field, 'must be an ISO 8601 date-time such as 2026-05-01T09:00:00Z');
  }
  const date = new Date(value.trim());
  if (Number.isNaN(date.getTime())) throw new AssistantInputError(field, 'is not a valid date-time');
  return date;
}

export function requireTimeZone(value: unknown, field = 'timeZone'): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new AssistantInputError(field, 'must be an IANA time zone such as Europe/Vienna');
  const zone = value.trim();
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new AssistantInputError(field, `"${zone}" is not a known IANA time zone (e.g. Europe/Vienna, UTC)`);
  }
  return zone;
}

/** Lower-cased, accent-preserving, whitespace-collapsed key used for "same name" checks. */
export function normaliseName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
