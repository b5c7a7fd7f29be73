// The minute tick: one Schedule Trigger fires every minute and each tick decides from the data what is due. In one
// transaction it writes its ledger row, fires the due reminders (claimed FOR UPDATE SKIP LOCKED and queued in the
// outbox, so two ticks at once fire each reminder once), decides whether the heartbeat runs (under the
// scheduler_state row lock), and claims due recurring actions, briefings and checks. The rest (phrasing, running the agent,
// sending) happens in the workflows it hands them to.
import type { Pool } from 'pg';

import { claimDueActions, type DueActionRun } from '../actions/scheduled-actions';
import { claimDueChecks, type DueCheckRun } from '../checks/checks';
import { queueMessage } from '../delivery/outbox';
import { withTransaction } from '../storage/db';
import { getInstanceSettings } from '../settings/settings';
import { requireDate } from '../schedule/zone';
import { AssistantInputError } from '../errors';
import { claimDueBriefings, type DueBriefing } from './briefing';
import { claimFailuresToReport, describeFailureRecord, recordFailure } from '../failures/failures';
import { describeInstant } from '../schedule/zone';

/** How often the tick workflow's trigger fires by default: every minute. */
export const DEFAULT_TICK_SECONDS = 60;

/** A reminder fired more than two tick periods after its due time is marked late (the first tick is due within one). */
export const lateAfterSeconds = (tickSeconds: number) => 2 * tickSeconds;

export interface TickOptions {
  /** How often the trigger fires (default 60): the ledger records each tick at this step, lateness is counted in it. */
  tickSeconds?: number;
}

export interface TickPlan {
  tickId: number;
  /** The moment this tick stands for: now rounded to the nearest tick period (by default the minute). */
  tickAt: string;
  now: string;
  remindersQueued: number;
  lateReminders: number;
  heartbeatDue: boolean;
  /** Set when the ledger shows a gap of more than two heartbeat intervals before this tick: the system was down. */
  outage: { from: string; to: string; lateReminders: number } | null;
  /** Failures reported to the owner by this tick (at most one report an hour). */
  failuresReported: number;
  actions: DueActionRun[];
  briefings: DueBriefing[];
  checks: DueCheckRun[];
}

const roundTo = (at: Date, seconds: number) => new Date(Math.round(at.getTime() / (seconds * 1000)) * seconds * 1000);

/** The tick period, checked: a whole number of seconds from 1 to 3,600 that divides into whole minutes or an hour. */
export function requireTickSeconds(value: number | undefined): number {
  const seconds = value ?? DEFAULT_TICK_SECONDS;
  const fits = seconds < 60 ? 60 % seconds === 0 : seconds % 60 === 0 && 3600 % seconds === 0;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600 || !fits) {
    throw new AssistantInputError(
      'tickSeconds',
      `must be a whole number of seconds that divides a minute (1, 2, 5, 10, 15, 20, 30) or an hour in whole ` +
        `minutes (60, 120, 300, …, 3600), not ${JSON.stringify(value)}`,
    );
  }
  return seconds;
}

export async function startTick(pool: Pool, nowInput: Date, options: TickOptions = {}): Promise<TickPlan> {
  const now = requireDate(nowInput);
  const tickSeconds = requireTickSeconds(options.tickSeconds);
  const tickAt = roundTo(now, tickSeconds);
  return withTransaction(pool, async (client) => {
    const settings = await getInstanceSettings(client);
    // One tick at a time from here: a concurrent tick waits, then sees this one in the ledger (no second outage,
    // no second heartbeat); due reminders and actions are claimed with SKIP LOCKED all the same.
    const state = await client.query(`SELECT last_heartbeat_at FROM assistant.scheduler_state FOR UPDATE`);
    const previous = await client.query(`SELECT max(started_at) AS at FROM assistant.scheduler_ticks`);
    const lastTickAt = previous.rows[0].at as Date | null;
    const ledger = await client.query(
      `INSERT INTO assistant.scheduler_ticks (tick_at, started_at) VALUES ($1, $2) RETURNING id`,
      [tickAt, now],
    );
    const tickId = Number(ledger.rows[0].id);

    const reminders = await client.query(
      `SELECT r.id, r.user_id, r.text, r.due_at, r.when_text, r.task_id, t.status AS task_status
         FROM assistant.reminders r LEFT JOIN assistant.tasks t ON t.user_id = r.user_id AND t.id = r.task_id
        WHERE r.status = 'scheduled' AND r.due_at <= $1
        ORDER BY r.due_at LIMIT 500 FOR UPDATE OF r SKIP LOCKED`,
      [now],
    );
    let queued = 0;
    let late = 0;
    for (const row of reminders.rows) {
      if (row.task_status === 'done' || row.task_status === 'cancelled') {
        await client.query(`UPDATE assistant.reminders SET status = 'cancelled' WHERE id = $1`, [row.id]);
        continue;
      }
      const dueAt = row.due_at as Date;
      const lateBy = now.getTime() - dueAt.getTime();
      const isLate = lateBy > lateAfterSeconds(tickSeconds) * 1000;
      const { message } = await queueMessage(client, row.user_id, {
        kind: 'reminder',
        text: `⏰ Reminder: ${row.text}`,
        data: {
          reminder_id: Number(row.id),
          task_id: row.task_id === null ? null : Number(row.task_id),
          due_at: dueAt.toISOString(),
          late: isLate,
          late_seconds: isLate ? Math.round(lateBy / 1000) : 0,
        },
        dedupeKey: `reminder:${row.id}`,
        tickId,
      });
      await client.query(
        `UPDATE assistant.reminders SET status = 'fired', fired_at = $2, late = $3, outbox_id = $4 WHERE id = $1`,
        [row.id, now, isLate, message.id],
      );
      queued++;
      if (isLate) late++;
    }

    const last = state.rows[0]?.last_heartbeat_at as Date | null;
    const heartbeatDue = !last || tickAt.getTime() - last.getTime() >= settings.heartbeatIntervalSeconds * 1000;
    if (heartbeatDue) await client.query(`UPDATE assistant.scheduler_state SET last_heartbeat_at = $1`, [tickAt]);

    let outage: TickPlan['outage'] = null;
    if (lastTickAt && now.getTime() - lastTickAt.getTime() > 2 * settings.heartbeatIntervalSeconds * 1000) {
      outage = { from: lastTickAt.toISOString(), to: now.toISOString(), lateReminders: late };
      const zone = settings.timeZone;
      await recordFailure(
        client,
        {
          source: 'outage',
          message:
            `down from ${describeInstant(lastTickAt, zone)} to ${describeInstant(now, zone)}` +
            (late ? `; ${late} reminder${late === 1 ? '' : 's'} delivered late` : ''),
          data: outage,
        },
        now,
      );
    }
    let failuresReported = 0;
    if (heartbeatDue && settings.ownerTelegramChatId && settings.failureReportMinutes > 0) {
      const owner = await client.query(`SELECT user_id FROM assistant.identities WHERE identity = $1`, [
        `telegram:${settings.ownerTelegramChatId}`,
      ]);
      const ownerId = owner.rows[0]?.user_id as string | undefined;
      const report = ownerId ? await claimFailuresToReport(client, now, settings.failureReportMinutes) : [];
      if (ownerId && report.length > 0) {
        const lines = report.map((failure) => `• ${describeFailureRecord(failure, settings.timeZone)}`);
        await queueMessage(client, ownerId, {
          kind: 'notice',
          text: `⚠️ ${report.length} failure${report.length === 1 ? '' : 's'} since the last report:\n${lines.join('\n')}`,
          data: { failure_ids: report.map((failure) => failure.id) },
          dedupeKey: `failure-report:${tickId}`,
          tickId,
        });
        failuresReported = report.length;
      }
    }

    const actions = await claimDueActions(client, now, { tickId });
    const briefings = await claimDueBriefings(client, now);
    const checks = await claimDueChecks(client, now, { tickId });
    await client.query(
      `UPDATE assistant.scheduler_ticks SET heartbeat = $2, reminders_queued = $3, late_reminders = $4,
              actions_started = $5, briefings_started = $6, checks_started = $7 WHERE id = $1`,
      [tickId, heartbeatDue, queued, late, actions.length, briefings.length, checks.length],
    );
    return {
      tickId,
      tickAt: tickAt.toISOString(),
      now: now.toISOString(),
      remindersQueued: queued,
      lateReminders: late,
      heartbeatDue,
      outage,
      failuresReported,
      actions,
      briefings,
      checks,
    };
  });
}

/** Closes a tick's ledger row with what its delivery step did. */
export async function finishTick(
  pool: Pool,
  tickId: number,
  counts: { delivered?: number; failures?: number },
  now: Date,
): Promise<void> {
  await pool.query(
    `UPDATE assistant.scheduler_ticks SET finished_at = $2, delivered = delivered + $3,
            delivery_failures = delivery_failures + $4 WHERE id = $1`,
    [tickId, now, counts.delivered ?? 0, counts.failures ?? 0],
  );
}

/** Adds nudges sent by the heartbeat to the tick that started it. */
export async function countNudges(pool: Pool, tickId: number, nudges: number): Promise<void> {
  await pool.query(`UPDATE assistant.scheduler_ticks SET nudges_sent = nudges_sent + $2 WHERE id = $1`, [
    tickId,
    nudges,
  ]);
}

export interface TickRecord {
  id: number;
  tickAt: string;
  startedAt: string;
  finishedAt: string | null;
  heartbeat: boolean;
  remindersQueued: number;
  lateReminders: number;
  nudgesSent: number;
  actionsStarted: number;
  briefingsStarted: number;
  checksStarted: number;
  delivered: number;
  deliveryFailures: number;
}

/** The ledger since `since`, oldest first. */
export async function listTicks(pool: Pool, since: Date): Promise<TickRecord[]> {
  const result = await pool.query(`SELECT * FROM assistant.scheduler_ticks WHERE started_at >= $1 ORDER BY id`, [
    since,
  ]);
  return result.rows.map((row) => ({
    id: Number(row.id),
    tickAt: (row.tick_at as Date).toISOString(),
    startedAt: (row.started_at as Date).toISOString(),
    finishedAt: row.finished_at instanceof Date ? row.finished_at.toISOString() : null,
    heartbeat: row.heartbeat as boolean,
    remindersQueued: row.reminders_queued as number,
    lateReminders: row.late_reminders as number,
    nudgesSent: row.nudges_sent as number,
    actionsStarted: row.actions_started as number,
    briefingsStarted: row.briefings_started as number,
    checksStarted: row.checks_started as number,
    delivered: row.delivered as number,
    deliveryFailures: row.delivery_failures as number,
  }));
}
