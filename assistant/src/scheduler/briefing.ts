// The daily briefing: at the local time a user chose, once per local day. Its content is gathered from the data
// (today's tasks and reminders, overdue tasks, recent failed deliveries); the model only phrases it.
import type { Queryable } from '../storage/db';
import { getUserPreferences } from '../settings/preferences';
import { getInstanceSettings, getUserSettings } from '../settings/settings';
import { addCalendarDays, describeInstant, requireDate, toWall, wallToInstant } from '../schedule/zone';
import { requireUserId } from '../validate';
import { withCaller } from '../gateway/caller';

/** A briefing more than this late (the system was down at the chosen time) says so. */
export const BRIEFING_LATE_MINUTES = 30;

export interface DueBriefing {
  userId: string;
  /** The user's local date the briefing is for, YYYY-MM-DD. */
  localDate: string;
  late: boolean;
}

/**
 * Claims the briefings due at `now`: users whose local clock has passed their briefing time and who had none today.
 * One statement marks the day, so two ticks never both take a user.
 */
export async function claimDueBriefings(db: Queryable, now: Date): Promise<DueBriefing[]> {
  const result = await db.query(
    `WITH due AS (
       SELECT u.user_id, (($1::timestamptz AT TIME ZONE coalesce(u.time_zone, i.time_zone)))::date AS local_date,
              (($1::timestamptz AT TIME ZONE coalesce(u.time_zone, i.time_zone)))::time - u.briefing_time::time AS lateness
         FROM assistant.user_settings u CROSS JOIN assistant.instance_settings i
        WHERE u.briefing_time IS NOT NULL
          AND ($1::timestamptz AT TIME ZONE coalesce(u.time_zone, i.time_zone))::time >= u.briefing_time::time
          AND u.briefing_last_on IS DISTINCT FROM ($1::timestamptz AT TIME ZONE coalesce(u.time_zone, i.time_zone))::date
        FOR UPDATE OF u SKIP LOCKED)
     UPDATE assistant.user_settings s SET briefing_last_on = due.local_date FROM due WHERE s.user_id = due.user_id
     RETURNING s.user_id, due.local_date::text AS local_date, extract(epoch FROM due.lateness) AS late_seconds`,
    [requireDate(now)],
  );
  return result.rows.map((row) => ({
    userId: row.user_id as string,
    localDate: row.local_date as string,
    late: Number(row.late_seconds) > BRIEFING_LATE_MINUTES * 60,
  }));
}

export interface BriefingFacts {
  userId: string;
  assistantName: string;
  style: string;
  timeZone: string;
  chatModel: string;
  /** How long the call that phrases it may take (the modelTimeoutSeconds setting). */
  modelTimeoutSeconds: number;
  today: string;
  tasksDueToday: Array<{ id: number; title: string; priority: string; due: string }>;
  overdue: Array<{ id: number; title: string; priority: string; due: string }>;
  remindersToday: Array<{ id: number; text: string; due: string }>;
  failedDeliveries: number;
  /** The briefing in plain words, built from the facts alone: what is sent if the model cannot phrase it. */
  draft: string;
}

/** Gathers the briefing of `userId` for their local day containing `now`. */
export async function gatherBriefing(db: Queryable, userIdInput: unknown, now: Date): Promise<BriefingFacts> {
  const userId = requireUserId(userIdInput);
  requireDate(now);
  const prefs = await getUserPreferences(db, userId);
  const personality = await getUserSettings(db, userId);
  const zone = prefs.timeZone;
  const wall = toWall(now, zone);
  const dayEnd = wallToInstant({ ...addCalendarDays(wall, 1), hour: 0, minute: 0, second: 0 }, zone).toJSDate();
  const tasks = await db.query(
    `SELECT id, title, priority, due_at FROM assistant.tasks
      WHERE user_id = $1 AND status IN ('open', 'in_progress') AND due_at < $2 ORDER BY due_at LIMIT 50`,
    [userId, dayEnd],
  );
  const describe = (row: Record<string, unknown>) => ({
    id: Number(row.id),
    title: row.title as string,
    priority: row.priority as string,
    due: describeInstant(row.due_at as Date, zone),
  });
  const overdue = tasks.rows.filter((row) => (row.due_at as Date) < now).map(describe);
  const tasksDueToday = tasks.rows.filter((row) => (row.due_at as Date) >= now).map(describe);
  const reminders = await db.query(
    `SELECT id, text, due_at FROM assistant.reminders
      WHERE user_id = $1 AND status = 'scheduled' AND due_at >= $2 AND due_at < $3 ORDER BY due_at LIMIT 50`,
    [userId, now, dayEnd],
  );
  const remindersToday = reminders.rows.map((row) => ({
    id: Number(row.id),
    text: row.text as string,
    due: describeInstant(row.due_at as Date, zone),
  }));
  const failed = await db.query(
    `SELECT count(*)::int AS n FROM assistant.outbox
      WHERE user_id = $1 AND status IN ('failed', 'unknown') AND created_at >= $2::timestamptz - interval '24 hours'`,
    [userId, now],
  );
  const instance = await getInstanceSettings(db);
  const today = describeInstant(now, zone).split(' ').slice(0, 2).join(' ');
  const lines = [`Your briefing for ${today}:`];
  const list = (title: string, items: string[]) => {
    lines.push(items.length ? `${title}:\n${items.map((item) => `• ${item}`).join('\n')}` : `${title}: none.`);
  };
  list(
    'Due today',
    tasksDueToday.map((t) => `${t.title} (${t.priority}, ${t.due.split(' ')[2]})`),
  );
  list(
    'Overdue',
    overdue.map((t) => `${t.title} (${t.priority}, was due ${t.due})`),
  );
  list(
    'Reminders today',
    remindersToday.map((r) => `${r.due.split(' ')[2]} ${r.text}`),
  );
  if (failed.rows[0].n > 0) lines.push(`${failed.rows[0].n} message(s) could not be delivered in the last 24 h.`);
  return {
    userId,
    assistantName: personality.assistantName,
    style: personality.style,
    timeZone: zone,
    chatModel: withCaller(instance.chatModel, { job: 'briefing', user: userId }),
    modelTimeoutSeconds: instance.modelTimeoutSeconds,
    today,
    tasksDueToday,
    overdue,
    remindersToday,
    failedDeliveries: failed.rows[0].n as number,
    draft: lines.join('\n\n'),
  };
}
