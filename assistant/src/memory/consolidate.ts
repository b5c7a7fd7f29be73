// The nightly consolidation of a user's memories: repeats are merged into one (the gate's near-duplicate rule), and
// when the live memories are over the budget the oldest, least important ones are folded into summary memories.
// Nothing is deleted: merged and folded memories keep `folded_into`/`folded_at` (history, never recalled, restorable
// by id for FOLD_RESTORE_DAYS, kept.ts) and each run writes its ledger (assistant.consolidation_runs / _entries).
// Pinned memories are never merged away or folded; unconfirmed ones younger than FOLD_MIN_AGE_DAYS are left alone.
// The summary text comes from an injected `summarise` (the node asks the chat model through the gateway). With a
// `summariseEntity`, the pass then rewrites the summaries of the people and things with memories new since the user's
// previous run (graph/entity-summaries.ts), in the same transaction.
import type { Pool } from 'pg';
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { refreshEntitySummaries, type SummariseEntity } from '../graph/entity-summaries';
import { getUserPreferences } from '../settings/preferences';
import { getInstanceSettings } from '../settings/settings';
import { isQuiet, type QuietHours } from '../schedule/quiet';
import { requireDate } from '../schedule/zone';
import { optionalInt, requireUserId } from '../validate';
import { factWords } from './gate-text';
import { nearDuplicateIndexGroups } from './near-duplicates';
import { underUserLock } from './gate';
import { memoryFields, insertMemory } from './store';

/** Live memories a user keeps before consolidation folds old ones, unless told (the instance's memoryBudget). */
export const MEMORY_BUDGET = 2000;
/** How many memories one summary folds at most. */
export const FOLD_GROUP_SIZE = 20;
/** Memories younger than this are never folded (and unconfirmed ones younger than this are never merged either). */
export const FOLD_MIN_AGE_DAYS = 30;
/** A user is consolidated at most once in this many hours. */
export const CONSOLIDATION_INTERVAL_HOURS = 20;
/** The local night consolidation runs in for users without quiet hours. */
export const DEFAULT_CONSOLIDATION_HOURS: QuietHours = { start: '02:00', end: '05:00' };
/** A summary longer than this is refused (the model did not summarise). */
const MAX_SUMMARY_CHARS = 4000;

/** Texts (oldest first) → one summary text. */
export type Summarise = (texts: string[]) => Promise<string>;

export interface ConsolidationEntry {
  action: 'merged' | 'folded';
  /** The memory they were merged into (the repeat kept) or folded into (the new summary). */
  into: number;
  ids: number[];
  /** The kept memory's content, or the summary. */
  content: string;
}

export interface ConsolidationResult {
  runId: number;
  userId: string;
  budget: number;
  liveBefore: number;
  liveAfter: number;
  merged: ConsolidationEntry[];
  folded: ConsolidationEntry[];
  /** The entities whose summaries were rewritten (none without `summariseEntity`). */
  entitiesSummarised: string[];
  /** false: the run stopped at `stopAt` with work left; the user is due again. */
  complete: boolean;
}

export interface ConsolidationOptions {
  now: Date;
  budget?: unknown;
  summarise: Summarise;
  /** Rewrites entity summaries after the merges and folds; without it none are. */
  summariseEntity?: SummariseEntity;
  /**
   * No summary starts at or after this time (by `clock`): the run keeps what it did, is marked incomplete, and the
   * user is due again at once (the workflow's time limit; a fold of 10,000 memories is hundreds of model calls).
   */
  stopAt?: Date;
  /** The current time for `stopAt`; the real clock by default. */
  clock?: () => Date;
}

interface LiveMemory {
  id: number;
  content: string;
  kind: string;
  importance: number;
  people: string[];
  entities: string[];
  tags: string[];
  confirmed: boolean;
  pinned: boolean;
  createdAt: Date;
  words: string[];
}

const DAY_MS = 86_400_000;

/** Consolidates one user's memories in one transaction: a failed summary leaves them as they were. */
export async function consolidateMemories(
  db: Pool,
  userIdInput: unknown,
  options: ConsolidationOptions,
): Promise<ConsolidationResult> {
  const userId = requireUserId(userIdInput);
  const now = requireDate(options?.now);
  const budget = optionalInt(options.budget, 'budget', 1, 1_000_000) ?? MEMORY_BUDGET;
  if (typeof options.summarise !== 'function') throw new AssistantInputError('summarise', 'must be a function');
  const { summariseEntity } = options;
  if (summariseEntity !== undefined && typeof summariseEntity !== 'function')
    throw new AssistantInputError('summariseEntity', 'must be a function when given');
  const stopAt = options.stopAt === undefined ? null : requireDate(options.stopAt, 'stopAt');
  const clock = options.clock ?? (() => new Date());
  const outOfTime = () => stopAt !== null && clock() >= stopAt;
  return underUserLock(db, userId, async (tx) => {
    const live = await liveMemories(tx, userId);
    const merges = nearDuplicateGroups(live, now);
    const merged: ConsolidationEntry[] = [];
    for (const group of merges) {
      const [keep, ...rest] = group;
      await fold(tx, userId, rest, keep.id, now);
      merged.push({ action: 'merged', into: keep.id, ids: rest.map((m) => m.id), content: keep.content });
    }
    const away = new Set(merges.flatMap((group) => group.slice(1).map((m) => m.id)));
    const remaining = live.filter((m) => !away.has(m.id));
    const folded: ConsolidationEntry[] = [];
    let complete = true;
    for (const group of foldGroups(remaining, budget, now)) {
      if (outOfTime()) {
        complete = false;
        break;
      }
      const summary = await summariseGroup(tx, userId, group, options.summarise);
      await fold(tx, userId, group, summary.id, now);
      folded.push({ action: 'folded', into: summary.id, ids: group.map((m) => m.id), content: summary.content });
    }
    const liveAfter = remaining.length - folded.reduce((sum, entry) => sum + entry.ids.length - 1, 0);
    const since = await previousRunAt(tx, userId);
    let entitiesSummarised: string[] = [];
    if (summariseEntity && complete) {
      const stopped = () => {
        if (outOfTime()) complete = false;
        return !complete;
      };
      entitiesSummarised = await refreshEntitySummaries(tx, userId, {
        now,
        since,
        summarise: summariseEntity,
        stopped,
      });
    }
    const run = { now, budget, liveBefore: live.length, liveAfter, entitiesSummarised, complete };
    const runId = await writeLedger(tx, userId, run, [...merged, ...folded]);
    return { runId, userId, budget, liveBefore: live.length, liveAfter, merged, folded, entitiesSummarised, complete };
  });
}

/** The user's live memories (neither superseded nor folded), oldest first. */
async function liveMemories(db: Queryable, userId: string): Promise<LiveMemory[]> {
  const result = await db.query(
    `SELECT id, content, kind, importance, people, entities, tags, confirmed, pinned, created_at
       FROM assistant.memories WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL
      ORDER BY created_at, id`,
    [userId],
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    content: row.content as string,
    kind: row.kind as string,
    importance: Number(row.importance),
    people: row.people as string[],
    entities: row.entities as string[],
    tags: row.tags as string[],
    confirmed: row.confirmed as boolean,
    pinned: row.pinned as boolean,
    createdAt: row.created_at as Date,
    words: factWords(row.content as string),
  }));
}

/** Which memory of a group of repeats is kept: pinned, confirmed, more important, newer. */
function keptFirst(a: LiveMemory, b: LiveMemory): number {
  return (
    Number(b.pinned) - Number(a.pinned) ||
    Number(b.confirmed) - Number(a.confirmed) ||
    b.importance - a.importance ||
    b.createdAt.getTime() - a.createdAt.getTime() ||
    b.id - a.id
  );
}

/**
 * Groups of near-duplicates by the gate's word rule (same numbers, word overlap ≥ DUPLICATE_WORD_OVERLAP), each with
 * the memory kept first. Pinned memories are never merged away; unconfirmed recent ones are left alone.
 */
function nearDuplicateGroups(live: LiveMemory[], now: Date): LiveMemory[][] {
  const eligible = live.filter(
    (m) => m.confirmed || now.getTime() - m.createdAt.getTime() >= FOLD_MIN_AGE_DAYS * DAY_MS,
  );
  const groups = nearDuplicateIndexGroups(eligible.map((m) => m.words)).map((indexes) =>
    indexes.map((index) => eligible[index]),
  );
  return groups
    .map((members) => {
      const sorted = [...members].sort(keptFirst);
      // Pinned ones besides the kept one stay live.
      return [sorted[0], ...sorted.slice(1).filter((m) => !m.pinned)];
    })
    .filter((members) => members.length > 1)
    .sort((a, b) => a[0].id - b[0].id);
}

/**
 * The groups to fold so that the live memories fit the budget: the least important, then oldest, memories older
 * than FOLD_MIN_AGE_DAYS and not pinned, in groups of at most FOLD_GROUP_SIZE (a group of one saves nothing).
 */
function foldGroups(live: LiveMemory[], budget: number, now: Date): LiveMemory[][] {
  let excess = live.length - budget;
  if (excess <= 0) return [];
  const candidates = live
    .filter((m) => !m.pinned && now.getTime() - m.createdAt.getTime() >= FOLD_MIN_AGE_DAYS * DAY_MS)
    .sort((a, b) => a.importance - b.importance || a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
  const groups: LiveMemory[][] = [];
  for (let at = 0; excess > 0 && at < candidates.length;) {
    const size = Math.min(FOLD_GROUP_SIZE, excess + 1, candidates.length - at);
    if (size < 2) break;
    groups.push(candidates.slice(at, at + size).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()));
    excess -= size - 1;
    at += size;
  }
  return groups;
}

/** The group's summary, stored as a new live memory (a note of source "consolidation") naming its people. */
async function summariseGroup(db: Queryable, userId: string, group: LiveMemory[], summarise: Summarise) {
  const text = await summarise(group.map((m) => m.content));
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_SUMMARY_CHARS)
    throw new AssistantInputError('summary', `must be a text of 1 to ${MAX_SUMMARY_CHARS} characters`);
  const union = (pick: (m: LiveMemory) => string[]) => [...new Set(group.flatMap(pick))].slice(0, 50);
  const fields = memoryFields({
    content: text.trim(),
    kind: 'note',
    importance: Math.max(...group.map((m) => m.importance)),
    tags: union((m) => m.tags),
    people: union((m) => m.people),
    entities: union((m) => m.entities),
    source: 'consolidation',
  });
  return insertMemory(db, userId, fields, { confirmed: group.every((m) => m.confirmed) });
}

async function fold(db: Queryable, userId: string, memories: LiveMemory[], into: number, now: Date): Promise<void> {
  await db.query(
    `UPDATE assistant.memories SET folded_into = $3, folded_at = $4
      WHERE user_id = $1 AND id = ANY($2::bigint[]) AND NOT pinned`,
    [userId, memories.map((m) => m.id), into, now],
  );
}

/** When the user was last consolidated (null: never). */
async function previousRunAt(db: Queryable, userId: string): Promise<Date | null> {
  const result = await db.query(
    'SELECT max(ran_at) AS ran_at FROM assistant.consolidation_runs WHERE user_id = $1 AND complete',
    [userId],
  );
  return (result.rows[0]?.ran_at as Date | null) ?? null;
}

async function writeLedger(
  db: Queryable,
  userId: string,
  run: {
    now: Date;
    budget: number;
    liveBefore: number;
    liveAfter: number;
    entitiesSummarised: string[];
    complete: boolean;
  },
  entries: ConsolidationEntry[],
): Promise<number> {
  const result = await db.query(
    `INSERT INTO assistant.consolidation_runs
       (user_id, ran_at, budget, live_before, live_after, entities_summarised, complete)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [userId, run.now, run.budget, run.liveBefore, run.liveAfter, run.entitiesSummarised, run.complete],
  );
  const runId = Number(result.rows[0].id);
  for (const entry of entries)
    await db.query(
      `INSERT INTO assistant.consolidation_entries (run_id, action, into_id, memory_ids) VALUES ($1, $2, $3, $4)`,
      [runId, entry.action, entry.into, entry.ids],
    );
  return runId;
}

export interface DueConsolidation {
  userId: string;
  timeZone: string;
  lastRunAt: string | null;
}

/**
 * The users to consolidate at `now` (none while the instance's memoryBudget is 0: the nightly pass is off): with live
 * memories, whose local quiet hours (else DEFAULT_CONSOLIDATION_HOURS)
 * contain `now`, and not consolidated in the last CONSOLIDATION_INTERVAL_HOURS; longest waiting first.
 */
export async function dueConsolidations(
  db: Queryable,
  options: { now: Date; limit?: unknown },
): Promise<DueConsolidation[]> {
  const now = requireDate(options?.now);
  const limit = optionalInt(options.limit, 'limit', 1, 1000) ?? 100;
  const { memoryBudget } = await getInstanceSettings(db);
  if (memoryBudget === 0) return [];
  const result = await db.query(
    `SELECT u.id, (SELECT max(ran_at) FROM assistant.consolidation_runs r WHERE r.user_id = u.id) AS last_run_at
       FROM assistant.users u
      WHERE EXISTS (SELECT 1 FROM assistant.memories m
                     WHERE m.user_id = u.id AND m.superseded_at IS NULL AND m.folded_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM assistant.consolidation_runs r
                         WHERE r.user_id = u.id AND r.complete AND r.ran_at > $1::timestamptz - make_interval(hours => $2))
      ORDER BY last_run_at NULLS FIRST, u.id`,
    [now, CONSOLIDATION_INTERVAL_HOURS],
  );
  const due: DueConsolidation[] = [];
  for (const row of result.rows) {
    const userId = row.id as string;
    const { timeZone, quietHours } = await getUserPreferences(db, userId);
    if (!isQuiet(now, timeZone, quietHours ?? DEFAULT_CONSOLIDATION_HOURS)) continue;
    due.push({ userId, timeZone, lastRunAt: row.last_run_at ? (row.last_run_at as Date).toISOString() : null });
    if (due.length >= limit) break;
  }
  return due;
}
