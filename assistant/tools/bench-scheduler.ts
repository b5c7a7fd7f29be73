// Benchmark: one reminder tick (startTick: reminders, and background checks claimed) and one heartbeat query
// (findNudges) on a real Postgres 17 holding 100k tasks, 100k reminders and 10k checks across 1,000 users, most not
// due; p50/p90 of repeated runs, and the query plans.
// Run: node_modules/.bin/tsx assistant/tools/bench-scheduler.ts   (docs/BENCHMARKS.md, "Scheduler tick")
import { startAssistantDatabase } from '../test/database';
import { findNudges, startTick, updateInstanceSettings } from '../src';

const USERS = 1_000;
const TASKS = 100_000;
const REMINDERS = 100_000;
const CHECKS = 10_000;
const RUNS = 30;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const db = await startAssistantDatabase();
  const pool = db.pool;
  try {
    const now = new Date('2035-06-01T12:00:00Z');
    await pool.query(`INSERT INTO assistant.users (id) SELECT gen_random_uuid() FROM generate_series(1, $1)`, [USERS]);
    // Tasks: 1 % overdue, 1 % high priority due within the day, the rest due in the months ahead or done.
    await pool.query(
      `INSERT INTO assistant.tasks (user_id, title, status, priority, due_at)
       SELECT u.id, 'task ' || g, CASE WHEN g % 5 = 0 THEN 'done' ELSE 'open' END,
              CASE WHEN g % 100 = 1 THEN 'high' ELSE 'medium' END,
              CASE WHEN g % 100 = 0 THEN $1::timestamptz - interval '2 days'
                   WHEN g % 100 = 1 THEN $1::timestamptz + interval '3 hours'
                   ELSE $1::timestamptz + (g % 9000) * interval '1 hour' END
         FROM generate_series(1, $2) g
         JOIN LATERAL (SELECT id FROM assistant.users OFFSET (g % $3) LIMIT 1) u ON true`,
      [now, TASKS, USERS],
    );
    await pool.query(
      `INSERT INTO assistant.reminders (user_id, text, due_at, when_text, time_zone)
       SELECT u.id, 'reminder ' || g, $1::timestamptz + interval '1 day' + (g % 50000) * interval '1 minute', 'later', 'UTC'
         FROM generate_series(1, $2) g
         JOIN LATERAL (SELECT id FROM assistant.users OFFSET (g % $3) LIMIT 1) u ON true`,
      [now, REMINDERS, USERS],
    );
    // Checks: every 15 minutes, spread over the coming days; each run below makes 5 of them due.
    await pool.query(
      `INSERT INTO assistant.checks (user_id, what, kind, target, schedule_text, schedule, time_zone, anchor_at, next_run_at)
       SELECT u.id, 'https://example.com/' || g, 'page', 'https://example.com/' || g, 'every 15 minutes',
              '{"ok":true,"kind":"interval","unit":"minutes","every":15,"description":"every 15 minutes"}'::jsonb, 'UTC', $1::timestamptz, $1::timestamptz + (g % 5000 + 60) * interval '1 minute'
         FROM generate_series(1, $2) g JOIN LATERAL (SELECT id FROM assistant.users OFFSET (g % $3) LIMIT 1) u ON true`,
      [now, CHECKS, USERS],
    );
    await pool.query('VACUUM ANALYZE');
    await updateInstanceSettings(pool, { heartbeatIntervalSeconds: 60 });

    const tickTimes: number[] = [];
    const heartbeatTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Each run: 10 reminders and 5 checks never run before fall due, as on a busy minute.
      const at = new Date(now.getTime() + i * 60_000);
      await pool.query(
        `UPDATE assistant.reminders SET due_at = $1 WHERE id IN (
           SELECT id FROM assistant.reminders WHERE status = 'scheduled' ORDER BY id DESC LIMIT 10)`,
        [at],
      );
      await pool.query(
        `UPDATE assistant.checks SET next_run_at = $1 WHERE id IN (
           SELECT id FROM assistant.checks WHERE last_run_at IS NULL AND next_run_at > $1 ORDER BY id DESC LIMIT 5)`,
        [at],
      );
      let t0 = performance.now();
      const tick = await startTick(pool, at);
      tickTimes.push(performance.now() - t0);
      if (tick.remindersQueued !== 10) throw new Error(`expected 10 reminders, got ${tick.remindersQueued}`);
      const started = tick.checks.length;
      if (started !== 5) throw new Error(`expected 5 checks started, got ${started}`);
      // The runs finish, as the check workflow would record them; those checks come round again after the benchmark.
      await pool.query(
        `UPDATE assistant.check_runs SET status = 'unchanged', finished_at = $2 WHERE id = ANY($1::bigint[])`,
        [tick.checks.map((run) => run.runId), at],
      );
      await pool.query(
        `UPDATE assistant.checks SET next_run_at = next_run_at + interval '1 day' WHERE id = ANY($1::bigint[])`,
        [tick.checks.map((run) => run.checkId)],
      );
      // The heartbeat's question with nothing new to say (the first run claims the nudges; later ones are in cooldown).
      t0 = performance.now();
      await findNudges(pool, at, tick.tickId);
      heartbeatTimes.push(performance.now() - t0);
    }
    const plan = async (sql: string, params: unknown[]) =>
      (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`, params)).rows
        .map((row) => `    ${row['QUERY PLAN']}`)
        .join('\n');
    const later = new Date(now.getTime() + RUNS * 60_000);
    const reminderPlan = await plan(
      `SELECT r.id FROM assistant.reminders r LEFT JOIN assistant.tasks t ON t.user_id = r.user_id AND t.id = r.task_id
        WHERE r.status = 'scheduled' AND r.due_at <= $1 ORDER BY r.due_at LIMIT 500 FOR UPDATE OF r SKIP LOCKED`,
      [later],
    );
    const nudgePlan = await plan(
      `SELECT t.id FROM assistant.tasks t
        WHERE t.status IN ('open', 'in_progress') AND t.due_at IS NOT NULL
          AND (t.due_at < $1 OR (t.priority IN ('high', 'urgent') AND t.due_at <= $1::timestamptz + interval '24 hours'))
          AND NOT EXISTS (SELECT 1 FROM assistant.nudge_log n WHERE n.user_id = t.user_id AND n.subject = 'task:' || t.id
                            AND n.last_sent_at > $1::timestamptz - interval '240 minutes')
        ORDER BY t.user_id, t.due_at LIMIT 1000 FOR UPDATE OF t SKIP LOCKED`,
      [later],
    );
    const checkPlan = await plan(
      `SELECT c.id FROM assistant.checks c
        WHERE c.status = 'active' AND c.next_run_at <= $1
          AND NOT EXISTS (SELECT 1 FROM assistant.check_runs r WHERE r.check_id = c.id AND r.status IN ('running', 'changed'))
        ORDER BY c.next_run_at LIMIT 200 FOR UPDATE OF c SKIP LOCKED`,
      [later],
    );
    const fmt = (values: number[]) =>
      `p50 ${percentile(values, 50).toFixed(1)} ms, p90 ${percentile(values, 90).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
    console.log(
      `Scheduler tick on ${TASKS} tasks, ${REMINDERS} reminders and ${CHECKS} checks (${USERS} users), ${RUNS} runs each:`,
    );
    console.log(`  tick (startTick, 10 reminders + 5 checks due): ${fmt(tickTimes)}`);
    console.log(`  heartbeat query (findNudges, in cooldown): ${fmt(heartbeatTimes)}`);
    console.log(`  first heartbeat (claims ~${TASKS / 50} nudges): ${heartbeatTimes[0].toFixed(1)} ms`);
    console.log(`\nDue reminders plan:\n${reminderPlan}\n\nNudge candidates plan:\n${nudgePlan}`);
    console.log(`\nDue checks plan:\n${checkPlan}`);
  } finally {
    await db.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
