// "New" decided from stored state, never by a model: a snapshot of what a check watches is compared with the state
// of its previous runs. A page is new when its text's hash differs (with the lines added and removed); a feed or
// search when it has item ids never seen; a JSON value when it changed, or crossed its threshold.
import { createHash } from 'node:crypto';
import type { CheckCondition } from './definition';

export interface WatchedItem {
  id: string;
  title: string;
  url: string | null;
}

export type Snapshot =
  | { kind: 'page'; text: string; title?: string }
  | { kind: 'feed' | 'search'; items: WatchedItem[] }
  | { kind: 'json'; value: unknown };

export type CheckState =
  | { kind: 'page'; hash: string; text: string }
  | { kind: 'feed' | 'search'; seen: string[] }
  | { kind: 'json'; value: unknown };

export interface Delta {
  /** One message's worth: what changed, in words. */
  summary: string;
}

/** How many seen item ids a feed or search check keeps (newest first). */
export const MAX_SEEN_ITEMS = 2000;
/** How much of a page's text is kept to diff the next run against. */
export const MAX_KEPT_TEXT = 100_000;
const MAX_LISTED = 10;
const MAX_LINE = 200;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Text as compared: whitespace inside lines collapsed, blank lines dropped. */
export function normaliseText(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

export interface Comparison {
  state: CheckState;
  /** Null on the first run (the baseline) and when nothing changed. */
  delta: Delta | null;
}

/** The new state and the delta from `previous` (null: this is the baseline). */
export function compareSnapshot(
  snapshot: Snapshot,
  previous: CheckState | null,
  rule: { condition: CheckCondition; threshold: number | null; path?: string | null } = {
    condition: 'changed',
    threshold: null,
  },
): Comparison {
  const before = previous && previous.kind === snapshot.kind ? previous : null;
  switch (snapshot.kind) {
    case 'page':
      return comparePage(snapshot.text, before as Extract<CheckState, { kind: 'page' }> | null);
    case 'feed':
    case 'search':
      return compareItems(
        snapshot.kind,
        snapshot.items,
        before as Extract<CheckState, { kind: 'feed' | 'search' }> | null,
      );
    case 'json':
      return compareValue(snapshot.value, before as Extract<CheckState, { kind: 'json' }> | null, rule);
  }
}

function comparePage(textInput: string, before: { hash: string; text: string } | null): Comparison {
  const text = normaliseText(textInput);
  const state: CheckState = { kind: 'page', hash: sha256(text), text: text.slice(0, MAX_KEPT_TEXT) };
  if (!before || before.hash === state.hash) return { state, delta: null };
  const { added, removed } = lineChanges(before.text, state.text);
  if (added.length === 0 && removed.length === 0) {
    return { state, delta: { summary: 'The page changed (the same lines, in a different order).' } };
  }
  const parts = [
    `The page changed: ${plural(added.length, 'line')} added, ${removed.length} removed.`,
    ...added.slice(0, MAX_LISTED).map((line) => `+ ${clip(line)}`),
    ...(added.length > MAX_LISTED ? [`+ … ${added.length - MAX_LISTED} more`] : []),
    ...removed.slice(0, MAX_LISTED).map((line) => `− ${clip(line)}`),
    ...(removed.length > MAX_LISTED ? [`− … ${removed.length - MAX_LISTED} more`] : []),
  ];
  return { state, delta: { summary: parts.join('\n') } };
}

/** Lines in `after` and not in `before`, and the reverse, counted as multisets (order ignored). */
export function lineChanges(before: string, after: string): { added: string[]; removed: string[] } {
  const counts = new Map<string, number>();
  for (const line of before.split('\n').filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after.split('\n').filter(Boolean)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const line of before.split('\n').filter(Boolean)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) {
      removed.push(line);
      counts.set(line, left - 1);
    }
  }
  return { added, removed };
}

function compareItems(kind: 'feed' | 'search', items: WatchedItem[], before: { seen: string[] } | null): Comparison {
  const ids = [...new Set(items.map((item) => item.id))];
  if (!before) return { state: { kind, seen: ids.slice(0, MAX_SEEN_ITEMS) }, delta: null };
  const seen = new Set(before.seen);
  const fresh = items.filter((item, index) => !seen.has(item.id) && ids.indexOf(item.id) === index);
  const state: CheckState = {
    kind,
    seen: [...fresh.map((item) => item.id), ...before.seen].slice(0, MAX_SEEN_ITEMS),
  };
  if (fresh.length === 0) return { state, delta: null };
  const noun = kind === 'feed' ? 'item' : 'result';
  const lines = fresh
    .slice(0, MAX_LISTED)
    .map((item) => `• ${clip(item.title || item.url || item.id)}${item.url ? ` — ${item.url}` : ''}`);
  if (fresh.length > MAX_LISTED) lines.push(`• … ${fresh.length - MAX_LISTED} more`);
  return { state, delta: { summary: [`${plural(fresh.length, `new ${noun}`)}:`, ...lines].join('\n') } };
}

/** A JSON value as a number, when it is one (or a numeric string such as "49.90"). */
export function numericValue(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d[\d,]*(\.\d+)?\s*$/.test(value)) return Number(value.replace(/,/g, ''));
  return null;
}

const show = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return clip(text ?? 'nothing');
};

function compareValue(
  value: unknown,
  before: { value: unknown } | null,
  rule: { condition: CheckCondition; threshold: number | null; path?: string | null },
): Comparison {
  const state: CheckState = { kind: 'json', value };
  if (!before) return { state, delta: null };
  const name = rule.path ?? 'The value';
  if (rule.condition === 'changed') {
    if (JSON.stringify(before.value) === JSON.stringify(value)) return { state, delta: null };
    return { state, delta: { summary: `${name} changed: ${show(before.value)} → ${show(value)}.` } };
  }
  const now = numericValue(value);
  const then = numericValue(before.value);
  const threshold = rule.threshold as number;
  if (now === null) return { state, delta: null };
  const crossed =
    rule.condition === 'above'
      ? now > threshold && (then === null || then <= threshold)
      : now < threshold && (then === null || then >= threshold);
  if (!crossed) return { state, delta: null };
  return {
    state,
    delta: { summary: `${name} went ${rule.condition} ${threshold}: ${show(before.value)} → ${show(value)}.` },
  };
}
