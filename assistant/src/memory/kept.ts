// What the assistant keeps about a user, for the memory panel: the live memories with ids and dates (and an
// entity's graph facts), pinning (never folded), restoring a merged or folded memory by id within
// FOLD_RESTORE_DAYS, and the consolidation ledger in plain words ("what did you tidy up last night?").
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { queryGraph, type GraphQueryResult } from '../graph/graph';
import { requireDate } from '../schedule/zone';
import { optionalInt, optionalText, requirePositiveInt, requireUserId } from '../validate';
import { MEMORY_COLUMNS, toMemory, type Memory } from './model';

/** A merged or folded memory can be restored by id for this many days. */
export const FOLD_RESTORE_DAYS = 30;

export interface KeptMemory extends Memory {
  pinned: boolean;
  foldedInto: number | null;
  foldedAt: string | null;
}

const KEPT_COLUMNS = `${MEMORY_COLUMNS}, pinned, folded_into, folded_at`;

function toKept(row: Record<string, unknown>): KeptMemory {
  return {
    ...toMemory(row),
    pinned: row.pinned === true,
    foldedInto: row.folded_into == null ? null : Number(row.folded_into),
    foldedAt: row.folded_at instanceof Date ? row.folded_at.toISOString() : null,
  };
}

/** Pins a memory (consolidation never folds it) or unpins it. */
export async function pinMemory(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  pinned: unknown,
): Promise<KeptMemory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  if (typeof pinned !== 'boolean') throw new AssistantInputError('pinned', 'must be true or false');
  const result = await db.query(
    `UPDATE assistant.memories SET pinned = $3, updated_at = now() WHERE user_id = $1 AND id = $2 RETURNING ${KEPT_COLUMNS}`,
    [userId, id, pinned],
  );
  if (!result.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  return toKept(result.rows[0]);
}

/** Makes a merged or folded memory live again (recalled as before); refused after FOLD_RESTORE_DAYS. */
export async function restoreMemory(
  db: Queryable,
  userIdInput: unknown,
  idInput: unknown,
  options: { now: Date },
): Promise<KeptMemory> {
  const userId = requireUserId(userIdInput);
  const id = requirePositiveInt(idInput, 'memoryId');
  const now = requireDate(options?.now);
  const found = await db.query(`SELECT ${KEPT_COLUMNS} FROM assistant.memories WHERE user_id = $1 AND id = $2`, [
    userId,
    id,
  ]);
  if (!found.rows[0]) throw new AssistantNotFoundError('memoryId', `no memory ${id} for this user`);
  const memory = toKept(found.rows[0]);
  if (!memory.foldedAt)
    throw new AssistantInputError('memoryId', `memory ${id} is not merged or folded: nothing to restore`);
  const until = new Date(Date.parse(memory.foldedAt) + FOLD_RESTORE_DAYS * 86_400_000);
  if (now >= until)
    throw new AssistantInputError(
      'memoryId',
      `memory ${id} was folded on ${memory.foldedAt.slice(0, 10)}; it could be restored for ${FOLD_RESTORE_DAYS} days, until ${until.toISOString().slice(0, 10)}`,
    );
  const result = await db.query(
    `UPDATE assistant.memories SET folded_into = NULL, folded_at = NULL, updated_at = now()
      WHERE user_id = $1 AND id = $2 RETURNING ${KEPT_COLUMNS}`,
    [userId, id],
  );
  return toKept(result.rows[0]);
}

export interface KeptList {
  memories: KeptMemory[];
  /** With `about`: the entity's graph facts (queryGraph). */
  graph?: GraphQueryResult;
  /** One plain line per memory and fact, with ids and dates. */
  lines: string[];
}

/** The user's live memories (newest first, up to `limit`) and, with `about`, that entity's graph facts. */
export async function listKept(
  db: Queryable,
  userIdInput: unknown,
  options: { about?: unknown; limit?: unknown; now?: Date } = {},
): Promise<KeptList> {
  const userId = requireUserId(userIdInput);
  const limit = optionalInt(options.limit, 'limit', 1, 500) ?? 100;
  const about = optionalText(options.about, 'about', 200)?.trim() || undefined;
  const graph = about
    ? await queryGraph(db, userId, about, { depth: 1, memoryLimit: 100, now: options.now })
    : undefined;
  const ids = graph?.memories.map((m) => m.id);
  const result = await db.query(
    `SELECT ${KEPT_COLUMNS} FROM assistant.memories
      WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL AND ($3::bigint[] IS NULL OR id = ANY($3::bigint[]))
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [userId, limit, ids ?? null],
  );
  const memories = result.rows.map(toKept);
  const lines = memories.map(
    (m) =>
      `memory ${m.id} (${m.createdAt.slice(0, 10)}${m.pinned ? ', pinned' : ''}${m.confirmed ? '' : ', unconfirmed'}): ${m.content}`,
  );
  if (graph) {
    const { entity } = graph;
    lines.unshift(
      `entity ${entity.id}: ${entity.name} (${entity.type})${entity.summary ? ` — ${entity.summary}` : ''}`,
      ...graph.relations.map(
        (r) =>
          `relation ${r.id}: ${r.from} ${r.type.replace(/_/g, ' ')} ${r.to}${r.validFrom ? ` (since ${r.validFrom.slice(0, 10)})` : ''}`,
      ),
    );
  }
  return { memories, ...(graph ? { graph } : {}), lines };
}

export interface ConsolidationReport {
  runs: Array<{
    id: number;
    ranAt: string;
    liveBefore: number;
    liveAfter: number;
    entries: Array<{ action: 'merged' | 'folded'; into: number | null; ids: number[]; restored: number[] }>;
    /** The people and things whose summaries the run rewrote. */
    entitiesSummarised: string[];
    /** false: it stopped at its time limit; the next run went on. */
    complete: boolean;
  }>;
  /** The runs in plain words, one line each and one per entry. */
  text: string;
}

/** The consolidation ledger since `since`, newest run first, saying which ids were restored since. */
export async function consolidationReport(
  db: Queryable,
  userIdInput: unknown,
  options: { since: Date },
): Promise<ConsolidationReport> {
  const userId = requireUserId(userIdInput);
  const since = requireDate(options?.since, 'since');
  const result = await db.query(
    `SELECT r.id, r.ran_at, r.live_before, r.live_after, r.entities_summarised, r.complete, e.action, e.into_id, e.memory_ids,
            ARRAY(SELECT m.id FROM assistant.memories m WHERE m.id = ANY(e.memory_ids) AND m.user_id = r.user_id
                    AND m.folded_into IS DISTINCT FROM e.into_id ORDER BY m.id) AS restored
       FROM assistant.consolidation_runs r LEFT JOIN assistant.consolidation_entries e ON e.run_id = r.id
      WHERE r.user_id = $1 AND r.ran_at >= $2 ORDER BY r.ran_at DESC, r.id DESC, e.id`,
    [userId, since],
  );
  const runs: ConsolidationReport['runs'] = [];
  for (const row of result.rows) {
    let run = runs.at(-1);
    if (run?.id !== Number(row.id)) {
      run = {
        id: Number(row.id),
        ranAt: (row.ran_at as Date).toISOString(),
        liveBefore: Number(row.live_before),
        liveAfter: Number(row.live_after),
        entries: [],
        entitiesSummarised: row.entities_summarised as string[],
        complete: row.complete === true,
      };
      runs.push(run);
    }
    if (row.action)
      run.entries.push({
        action: row.action as 'merged' | 'folded',
        into: row.into_id == null ? null : Number(row.into_id),
        ids: (row.memory_ids as string[]).map(Number),
        restored: (row.restored as string[]).map(Number),
      });
  }
  return { runs, text: reportText(runs, since) };
}

function reportText(runs: ConsolidationReport['runs'], since: Date): string {
  if (runs.length === 0)
    return `Nothing was tidied up since ${since.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
  const lines: string[] = [];
  for (const run of runs) {
    const when = run.ranAt.slice(0, 16).replace('T', ' ');
    const stopped = run.complete ? '' : ' It stopped at its time limit; the next run went on.';
    lines.push(`${when} UTC: ${run.liveBefore} memories before, ${run.liveAfter} after.${stopped}`);
    if (run.entries.length === 0 && run.entitiesSummarised.length === 0) lines.push('- nothing needed tidying');
    for (const entry of run.entries) {
      const what = entry.action === 'merged' ? 'repeats merged into' : 'old memories folded into the summary';
      const restored = entry.restored.length > 0 ? ` (restored since: ${entry.restored.join(', ')})` : '';
      lines.push(
        `- ${entry.ids.length} ${what} memory ${entry.into ?? '(deleted)'}: ${entry.ids.join(', ')}${restored}`,
      );
    }
    const names = run.entitiesSummarised;
    if (names.length > 0) lines.push(`- ${names.length} people and things re-summarised: ${names.join(', ')}`);
  }
  lines.push(`Any of them can be restored by id for ${FOLD_RESTORE_DAYS} days.`);
  return lines.join('\n');
}
