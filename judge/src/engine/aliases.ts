// Moving model names. A pinned id is `<name>-<version>`; `<name>-latest` resolves, without configuration, to the
// newest pinned id of that name, and `jev-latest` (the TypeSafe SDK's default model) to the first model served
// when no `jev-<version>` model is served. Configured aliases come on top (see JudgeEngine).
//
// Versions (the id's suffix after the name, which has a letter), tried in this order:
//   a date        `YYYY-MM-DD` or `YYYYMMDD`          judge-openai-2026-11-01 → name judge-openai, 2026.11.1
//   a number      `1`, `1.13`, `v2.0.1`              jev-1.13.0               → name jev, 1.13.0
// Newest = the largest version, compared number by number (missing parts count as 0; a date reads as
// year.month.day, so it outranks a small release number); on a tie, the model listed first.
import type { ModelDescriptor } from './backend';

/** The moving name a request may use for "the current model" (the TypeSafe SDK's default model name). */
export const DEFAULT_ALIAS = 'jev-latest';

export const LATEST_SUFFIX = '-latest';

export interface ParsedModelId {
  /** The id without its version, e.g. "judge-openai" for "judge-openai-2026-11-01". */
  name: string;
  /** The version's numbers, e.g. [2026, 11, 1] or [1, 13, 0]. */
  version: number[];
}

const DASHED_DATE = /^(.+)-(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE = /^(.+)-(\d{4})(\d{2})(\d{2})$/;
const NUMBER = /^(.+)-v?(\d+(?:\.\d+)*)$/;

function isDate(month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** A name has a letter: "2026-11-01" is a date, not the model "2026-11" in version 1. */
const NAME = /[A-Za-z]/;

/** The name and version of a pinned id, or undefined when the id carries no version suffix. */
export function parseModelId(id: string): ParsedModelId | undefined {
  for (const pattern of [DASHED_DATE, COMPACT_DATE]) {
    const match = pattern.exec(id);
    if (match && NAME.test(match[1]) && isDate(Number(match[3]), Number(match[4]))) {
      return { name: match[1], version: [Number(match[2]), Number(match[3]), Number(match[4])] };
    }
  }
  const match = NUMBER.exec(id);
  return match && NAME.test(match[1]) ? { name: match[1], version: match[2].split('.').map(Number) } : undefined;
}

/** Negative when `a` is older than `b`, positive when newer, 0 when equal. */
export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** `<name>-latest` → the newest id of that name, for every versioned name served. */
export function latestAliases(models: ModelDescriptor[]): Record<string, string> {
  const newest = new Map<string, { id: string; version: number[] }>();
  for (const model of models) {
    const parsed = parseModelId(model.id);
    if (!parsed) continue;
    const current = newest.get(parsed.name);
    if (!current || compareVersions(parsed.version, current.version) > 0) {
      newest.set(parsed.name, { id: model.id, version: parsed.version });
    }
  }
  return Object.fromEntries([...newest].map(([name, { id }]) => [name + LATEST_SUFFIX, id]));
}

/**
 * The aliases every engine has without configuration: `<name>-latest` for each versioned name, and DEFAULT_ALIAS
 * → the first model when no `jev-<version>` model is served. A name the backend serves as a model is never an alias.
 */
export function defaultAliases(models: ModelDescriptor[]): Record<string, string> {
  const served = new Set(models.map((m) => m.id));
  const aliases: Record<string, string> = {};
  for (const [alias, target] of Object.entries(latestAliases(models))) {
    if (!served.has(alias)) aliases[alias] = target;
  }
  const first = models[0]?.id;
  if (first !== undefined && !(DEFAULT_ALIAS in aliases) && !served.has(DEFAULT_ALIAS)) aliases[DEFAULT_ALIAS] = first;
  return aliases;
}
