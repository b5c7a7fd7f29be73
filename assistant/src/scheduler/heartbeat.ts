// The heartbeat: every `heartbeatIntervalSeconds` the database is asked whether anyone has overdue tasks,
// high-priority tasks due soon, or urgent tasks without a due date left alone for `urgentNudgeHours` (since they were
// last changed or nudged about). Only then is anything phrased (so an idle heartbeat costs no model call). A task is
// nudged about at most once per cooldown, and never during the user's quiet hours (it waits for their end).
import type { Pool } from 'pg';

import { withTransaction } from '../storage/db';
import { getUserPreferences } from '../settings/preferences';
import { getInstanceSettings, getUserSettings } from '../settings/settings';
import { isQuiet } from '../schedule/quiet';
import { describeInstant, requireDate } from '../schedule/zone';
import { withCaller } from '../gateway/caller';

export interface NudgeTask {
  id: number;
  title: string;
  priority: string;
  /** On the user's clock, or null: an urgent task without a due date. */
  due: string | null;
  overdue: boolean;
}

export interface NudgeDraft {
  userId: string;
  assistantName: string;
  style: string;
  timeZone: string;
  /** The model that phrases it (the instance's chatModel setting). */
  chatModel: string;
  /** How long the call that phrases it may take (the modelTimeoutSeconds setting). */
  modelTimeoutSeconds: number;
  tasks: NudgeTask[];
  /** What the outbox de-duplicates on: one nudge per user per heartbeat tick. */
  dedupeKey: string;
  /** The nudge in plain words, from the facts alone: sent as is if the model cannot phrase it. */
  draft: string;
}

/**
 * Finds what to nudge about at `now` and claims it (the cooldown starts now, under the same transaction), one draft
 * per user. An empty list means an idle heartbeat: nothing to phrase, nothing to send.
 */
export async function findNudges(pool: Pool, nowInput: Date, tickId: number): Promise<NudgeDraft[]> {
  const now = requireDate(nowInput);
  return withTransaction(pool, async (client) => {
    const settings = await getInstanceSettings(client);
    const candidates = await client.query(
      `SELECT t.id, t.user_id, t.title, t.priority, t.due_at, coalesce(t.due_at < $1, false) AS overdue
         FROM assistant.tasks t
        WHERE t.status IN ('open', 'in_progress')
          AND (t.due_at < $1 OR (t.priority IN ('high', 'urgent') AND t.due_at <= $1::timestamptz + make_interval(hours => $2))
               OR (t.due_at IS NULL AND t.priority = 'urgent' AND $4 > 0
                   AND t.updated_at <= $1::timestamptz - make_interval(hours => $4)
                   AND NOT EXISTS (SELECT 1 FROM assistant.nudge_log n
                                    WHERE n.user_id = t.user_id AND n.subject = 'task:' || t.id
                                      AND n.last_sent_at > $1::timestamptz - make_interval(hours => $4))))
          AND NOT EXISTS (SELECT 1 FROM assistant.nudge_log n
                           WHERE n.user_id = t.user_id AND n.subject = 'task:' || t.id
                             AND n.last_sent_at > $1::timestamptz - make_interval(mins => $3))
        ORDER BY t.user_id, t.due_at NULLS LAST, t.id LIMIT 1000
        FOR UPDATE OF t SKIP LOCKED`,
      [now, settings.nudgeSoonHours, settings.nudgeCooldownMinutes, settings.urgentNudgeHours],
    );
    const byUser = new Map<string, Array<Record<string, unknown>>>();
    for (const row of candidates.rows) {
      const list = byUser.get(row.user_id as string) ?? [];
      if (list.length < 10) list.push(row);
      byUser.set(row.user_id as string, list);
    }
    const drafts: NudgeDraft[] = [];
    for (const [userId, rows] of byUser) {
      const prefs = await getUserPreferences(client, userId);
      if (prefs.quietHours && isQuiet(now, prefs.timeZone, prefs.quietHours)) continue;
      const personality = await getUserSettings(client, userId);
      for (const row of rows) {
        await client.query(
          `INSERT INTO assistant.nudge_log (user_id, subject, last_sent_at) VALUES ($1, $2, $3)
           ON CONFLICT (user_id, subject) DO UPDATE SET last_sent_at = EXCLUDED.last_sent_at`,
          [userId, `task:${row.id}`, now],
        );
      }
      const tasks = rows.map((row) => ({
        id: Number(row.id),
        title: row.title as string,
        priority: row.priority as string,
        due: row.due_at instanceof Date ? describeInstant(row.due_at, prefs.timeZone) : null,
        overdue: row.overdue as boolean,
      }));
      const lines = tasks.map((t) => `• ${t.title} (${t.priority}) — ${dueWords(t)}`);
      drafts.push({
        userId,
        assistantName: personality.assistantName,
        style: personality.style,
        timeZone: prefs.timeZone,
        chatModel: withCaller(settings.chatModel, { job: 'heartbeat', user: userId }),
        modelTimeoutSeconds: settings.modelTimeoutSeconds,
        tasks,
        dedupeKey: `nudge:${userId}:${tickId}`,
        draft: `A nudge about your tasks:\n${lines.join('\n')}`,
      });
    }
    return drafts;
  });
}

function dueWords(task: NudgeTask): string {
  if (task.due === null) return 'no due date yet';
  return `${task.overdue ? 'was due' : 'due'} ${task.due}`;
}
