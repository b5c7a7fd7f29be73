// A month of use written straight into the stack's Postgres (the host benchmark, scripts/bench-host.ts): turns, memories,
// check runs, model calls, minute ticks and n8n executions, each shaped like the real rows the benchmark's own turn,
// check and tick left (copied with their columns, only time and text varied), spread over the 30 days before `now`.
// Memories go through the product's own remember() (the same columns, search vector and keys as the agent's). Every
// value is a query parameter; table and column names come from information_schema, quoted by format('%I').
import type { Pool } from 'pg';
import { remember } from '../../assistant/src';

export interface MonthPlan {
  turns: number;
  memories: number;
  checks: number;
  checkRunsPerCheckPerDay: number;
  ticksPerDay: number;
  /** executions n8n saves in the month (only failed ones: every workflow sets saveDataSuccessExecution none) */
  executions: number;
}

const DAY_MS = 86_400_000;
const MONTH_DAYS = 30;

/** The columns of a table a copy may write: not generated, not an identity or serial id. */
async function copyableColumns(db: Pool, schema: string, table: string): Promise<string[]> {
  const result = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' AND is_identity = 'NO'
        AND coalesce(column_default, '') NOT LIKE 'nextval(%'
      ORDER BY ordinal_position`,
    [schema, table],
  );
  if (result.rows.length === 0) throw new Error(`no table ${schema}.${table}`);
  return result.rows.map((row) => row.column_name);
}

/**
 * Copies row `sourceId` of the table `count` times (g = 1..count), with some columns replaced by SQL over g and the
 * parameters: $1 count, $2 now (a timestamptz), $3 the source row's id, $4.. `extra`.
 */
async function copyRow(
  db: Pool,
  table: string,
  sourceId: number | string,
  count: number,
  replace: Record<string, string>,
  now: Date,
  extra: unknown[] = [],
): Promise<void> {
  const [schema, name] = table.split('.');
  const columns = await copyableColumns(db, schema, name);
  const list = columns.map(quoteIdent).join(', ');
  const select = columns.map((column) => replace[column] ?? `src.${quoteIdent(column)}`).join(', ');
  // $2 is named in the WHERE so that its type is known when no replacement uses it.
  await db.query(
    `INSERT INTO ${quoteIdent(schema)}.${quoteIdent(name)} (${list})
     SELECT ${select}
       FROM (SELECT * FROM ${quoteIdent(schema)}.${quoteIdent(name)} WHERE id = $3 AND $2::timestamptz IS NOT NULL) AS src,
            generate_series(1, $1::int) AS g`,
    [count, now, sourceId, ...extra],
  );
}

/** A column name from information_schema, quoted as an identifier (only letters, digits and _ occur here). */
function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unexpected column name ${name}`);
  return `"${name}"`;
}

/** SQL for the g-th of n instants spread evenly over the 30 days before $2 (a timestamptz parameter). */
const spread = (n: number) =>
  `($2::timestamptz - interval '${MONTH_DAYS} days' + (g * ${MONTH_DAYS * DAY_MS} / ${n}) * interval '1 millisecond')`;

const PEOPLE = ['Anna', 'Ben', 'Carla', 'David', 'Eva', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kemal', 'Lena'];
const THINGS = [
  'dentist appointment',
  'favourite restaurant',
  'phone number',
  'birthday',
  'flight to Lisbon',
  'gym membership',
  'car insurance',
  'tax adviser',
  'book club',
  'allergy',
  'landlord',
  'bike repair',
];

/** A fact of ordinary length (~110 characters), different for every n. */
function fact(n: number): { content: string; people: string[]; tags: string[] } {
  const person = PEOPLE[n % PEOPLE.length];
  const thing = THINGS[Math.floor(n / PEOPLE.length) % THINGS.length];
  const day = 1 + (n % 28);
  return {
    content:
      `${person}'s ${thing}: noted on day ${day}, item ${n}; ask again before the end of the month if nothing ` +
      `changes (ref ${(n * 7919) % 100_000}).`,
    people: [person],
    tags: [thing.split(' ')[0]],
  };
}

export interface MonthSources {
  userId: string;
  /** the benchmark turn's user row and assistant row (assistant.turns ids) */
  userTurnId: number;
  replyTurnId: number;
  checkRunId: number;
  /** the executions copied (n8n's execution_entity id; its execution_data row is copied with it) */
  executionId: string;
}

/** Writes the month; returns what it wrote, by table. */
export async function writeMonth(
  db: Pool,
  n8n: Pool,
  plan: MonthPlan,
  sources: MonthSources,
  now: Date,
): Promise<Record<string, number>> {
  const written: Record<string, number> = {};
  const turnText = (length: number) =>
    `left(repeat(md5(g::text) || ' ' || md5((g * 31)::text) || ' the ', ${Math.ceil(length / 70)}), ${length})`;
  // A turn: the user's message (~200 characters) and the reply (~700), as two rows.
  const session = `'month-' || (g / 20)`;
  const at = spread(plan.turns);
  await copyRow(
    db,
    'assistant.turns',
    sources.userTurnId,
    plan.turns,
    { content: turnText(200), session_id: session, created_at: at, finished_at: at },
    now,
  );
  await copyRow(
    db,
    'assistant.turns',
    sources.replyTurnId,
    plan.turns,
    { content: turnText(700), session_id: session, created_at: at, finished_at: at, answers_turn_id: 'NULL' },
    now,
  );
  written['assistant.turns (rows: a message and its reply per turn)'] = plan.turns * 2;

  const runs = plan.checks * plan.checkRunsPerCheckPerDay * MONTH_DAYS;
  const checkIds = await copyChecks(db, sources.checkRunId, plan.checks, now);
  await copyRow(
    db,
    'assistant.check_runs',
    sources.checkRunId,
    runs,
    { check_id: `($4::bigint[])[1 + g % ${plan.checks}]`, started_at: spread(runs), finished_at: spread(runs) },
    now,
    [checkIds],
  );
  written['assistant.check_runs'] = runs;

  const calls = await db.query<{ id: string }>(
    `SELECT id FROM assistant.model_calls WHERE user_id = $1 ORDER BY id DESC LIMIT 1`,
    [sources.userId],
  );
  if (calls.rows[0]) {
    await copyRow(db, 'assistant.model_calls', calls.rows[0].id, plan.turns, { at: spread(plan.turns) }, now);
    written['assistant.model_calls (one per turn)'] = plan.turns;
  }

  const ticks = plan.ticksPerDay * MONTH_DAYS;
  const lastTick = await db.query<{ id: string }>('SELECT max(id) AS id FROM assistant.scheduler_ticks');
  const tickAt = spread(ticks);
  await copyRow(
    db,
    'assistant.scheduler_ticks',
    lastTick.rows[0].id,
    ticks,
    { tick_at: tickAt, started_at: tickAt, finished_at: tickAt },
    now,
  );
  written['assistant.scheduler_ticks'] = ticks;

  written['assistant.memories (through remember())'] = await writeMemories(db, sources.userId, plan.memories);
  const executions = await copyExecutions(n8n, sources.executionId, plan.executions, now);
  written['n8n executions (execution_entity + execution_data)'] = executions.length;
  return written;
}

/** The benchmark's check copied to `count` checks in all (the original among them); their ids. */
async function copyChecks(db: Pool, checkRunId: number, count: number, now: Date): Promise<number[]> {
  const original = await db.query<{ check_id: string }>('SELECT check_id FROM assistant.check_runs WHERE id = $1', [
    checkRunId,
  ]);
  const id = original.rows[0].check_id;
  // Paused: the copies hold rows, they do not run in the live stack.
  await copyRow(db, 'assistant.checks', id, count - 1, { what: `src.what || ' ' || g`, status: `'paused'` }, now);
  const all = await db.query<{ id: string }>(
    `SELECT id FROM assistant.checks WHERE user_id = (SELECT user_id FROM assistant.checks WHERE id = $1) ORDER BY id`,
    [id],
  );
  return all.rows.map((row) => Number(row.id));
}

async function writeMemories(db: Pool, userId: string, count: number): Promise<number> {
  const parallel = 4;
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let n = next++; n < count; n = next++) await remember(db, userId, { ...fact(n), source: 'conversation' });
    }),
  );
  return count;
}

/**
 * n8n's executions: execution `executionId`'s entity row and its data copied `count` times as failed (kept)
 * executions, the dates spread over the month before `now` (count 1: at `now`); the new ids.
 */
export async function copyExecutions(n8n: Pool, executionId: string, count: number, now: Date): Promise<string[]> {
  const entity = await n8n.query('SELECT id FROM public.execution_entity WHERE id = $1', [executionId]);
  if (!entity.rows[0]) throw new Error(`execution ${executionId} is gone (n8n deleted it before it was copied)`);
  const columns = await copyableColumns(n8n, 'public', 'execution_entity');
  const list = columns.map(quoteIdent).join(', ');
  const replace: Record<string, string> = {
    startedAt: spread(count),
    stoppedAt: spread(count),
    createdAt: spread(count),
    deletedAt: 'NULL',
    status: `'error'`,
    finished: 'false',
  };
  const select = columns.map((column) => replace[column] ?? `src.${quoteIdent(column)}`).join(', ');
  const dataColumns = (await copyableColumns(n8n, 'public', 'execution_data')).filter((c) => c !== 'executionId');
  const dataList = dataColumns.map(quoteIdent).join(', ');
  const made = await n8n.query<{ id: string }>(
    `INSERT INTO public.execution_entity (${list})
     SELECT ${select} FROM (SELECT * FROM public.execution_entity WHERE id = $3) AS src, generate_series(1, $1::int) AS g
     RETURNING id`,
    [count, now, executionId],
  );
  const ids = made.rows.map((row) => String(row.id));
  for (let at = 0; at < ids.length; at += 1000) {
    await n8n.query(
      `INSERT INTO public.execution_data ("executionId", ${dataList})
       SELECT made.id, ${dataColumns.map((c) => `src.${quoteIdent(c)}`).join(', ')}
         FROM unnest($2::int[]) AS made(id), (SELECT * FROM public.execution_data WHERE "executionId" = $1) AS src`,
      [executionId, ids.slice(at, at + 1000)],
    );
  }
  return ids;
}
