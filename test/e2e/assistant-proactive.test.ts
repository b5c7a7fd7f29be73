// The assistant speaking first, on the real n8n + Postgres 17: the shipped minute tick keeps its real one-minute
// Schedule Trigger, and a fast copy of it (setup/fast-tick.ts) ticks every 5 seconds, so that the scenarios wait for
// seconds instead of minutes. Reminders delivered by the first tick at or after their due time (read from the run
// ledger), exactly once although at a whole minute two ticks run at the same moment, to a signed callback and through
// the fake Telegram Bot API; a German user's reminder read in her language and zone; retries and the attempt limit;
// the outbox endpoint; the heartbeat's nudge once per cooldown and no model call when idle; a recurring action on
// consecutive minutes; the real minute trigger firing in the ledger; and a reminder falling due while n8n is down,
// delivered once after the restart, marked late. Each scenario waits with a generous bound but asserts ticks, not
// durations.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTask,
  listTicks,
  resolveIdentity,
  runMigrations,
  scheduleAction,
  setCallbackUrl,
  setReminder,
  updateInstanceSettings,
  updateUserSettings,
  verifySignature,
} from 'assistant-core';
import { CallbackReceiverControl, type ReceivedCallback } from '../fakes/callback-receiver';
import { E2E_CALLBACK_SECRET } from '../fakes/assistant-e2e-fakes';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { waitFor } from '../../scripts/runtime/process';
import { postgresCredentialData } from './setup/postgres-credential';
import { startFastTick } from './setup/fast-tick';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
/** The fast tick's period: a whole minute is every twelfth of its ticks. */
const FAST_TICK_SECONDS = 5;
const TELEGRAM_CHAT = 4242777;
/** A few ticks: generous, so the test ends, never a timing assertion. */
const FEW_TICKS_MS = 4 * 60_000;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let callbacks: CallbackReceiverControl;
let callbackBase: string;
let db: Pool;
let stopFastTick: (() => Promise<void>) | undefined;
let fastTickFrom: number;
const started = new Date();

interface OutboxRow {
  id: string;
  kind: string;
  text: string;
  status: string;
  attempts: number;
  last_error: string | null;
  tick_id: string | null;
  delivered_at: Date | null;
  channel_message_id: string | null;
  data: Record<string, unknown>;
}

const outboxOf = async (userId: string, kind?: string) =>
  (
    await db.query<OutboxRow>(
      `SELECT id, kind, text, status, attempts, last_error, tick_id, delivered_at, channel_message_id, data
         FROM assistant.outbox WHERE user_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY id`,
      [userId, kind ?? null],
    )
  ).rows;

async function apiUser(name: string): Promise<{ externalId: string; userId: string }> {
  const externalId = `${name}-${run}`;
  return { externalId, userId: (await resolveIdentity(db, 'api', externalId)).userId };
}

async function callbackUser(name: string): Promise<{ externalId: string; userId: string; path: string }> {
  const user = await apiUser(name);
  const path = `/${name}-${run}`;
  await setCallbackUrl(db, user.userId, `${callbackBase}${path}`);
  return { ...user, path };
}

/** The tick ledger row that queued an outbox message, and every tick before it since the test began. */
async function tickOf(row: OutboxRow) {
  const ticks = await listTicks(db, started);
  const index = ticks.findIndex((tick) => String(tick.id) === row.tick_id);
  expect(index, `the tick ${row.tick_id} that queued message ${row.id} is in the ledger`).toBeGreaterThanOrEqual(0);
  return { tick: ticks[index], earlier: ticks.slice(0, index) };
}

/** The message was queued by the first tick whose `now` is at or after `dueAt` (its twin of the same minute aside). */
async function expectFirstTickAtOrAfter(row: OutboxRow, dueAt: Date) {
  const { tick, earlier } = await tickOf(row);
  expect(new Date(tick.startedAt).getTime()).toBeGreaterThanOrEqual(dueAt.getTime());
  const earlierDue = earlier.filter((t) => new Date(t.startedAt) >= dueAt && t.tickAt !== tick.tickAt);
  expect(earlierDue, 'no earlier tick at or after the due time').toEqual([]);
  return tick;
}

const dueAtOf = async (reminderId: number) =>
  (await db.query<{ due_at: Date }>('SELECT due_at FROM assistant.reminders WHERE id = $1', [reminderId])).rows[0]
    .due_at;

async function reminderIn(userId: string, text: string, when: string) {
  const set = await setReminder(db, userId, { text, when }, new Date());
  if (!set.ok) throw new Error(set.message);
  return set.reminder;
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  callbackBase = stack.fakeUrls.E2E_CALLBACK_RECEIVER_URL;
  callbacks = new CallbackReceiverControl(callbackBase);
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: {
      data: postgresCredentialData(stack.postgresUrl),
    },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 3 });
  await runMigrations(db);
  // Shortened by settings for the test; the trigger stays the real one-minute Schedule Trigger.
  await updateInstanceSettings(db, { heartbeatIntervalSeconds: 60, deliveryMaxAttempts: 3, deliveryRetrySeconds: 1 });

  // From now on a tick every 5 seconds, and at every whole minute two at the same moment.
  stopFastTick = await startFastTick(stack, `E2E fast tick ${run}`, FAST_TICK_SECONDS);
  fastTickFrom = Date.now();
}, 120_000);

afterAll(async () => {
  await stopFastTick?.();
  if (db) {
    await updateInstanceSettings(db, {
      heartbeatIntervalSeconds: 300,
      deliveryMaxAttempts: 8,
      deliveryRetrySeconds: 30,
    }).catch(() => undefined);
    await db.end();
  }
});

describe('proactive messages on the minute tick', { timeout: 600_000 }, () => {
  // Everything below is set up first, so that the scenarios share the same minutes of waiting.
  let alice: Awaited<ReturnType<typeof callbackUser>>;
  let aliceReply: { status: number; body: Record<string, unknown> };
  let bob: Awaited<ReturnType<typeof callbackUser>>;
  let bobReminder: { id: number };
  let carol: Awaited<ReturnType<typeof callbackUser>>;
  let dave: Awaited<ReturnType<typeof apiUser>>;
  let erin: Awaited<ReturnType<typeof callbackUser>>;
  let erinAction: number;
  let gerda: Awaited<ReturnType<typeof callbackUser>>;
  let gerdaReply: { status: number; body: Record<string, unknown>; sentAt: number };
  let tgUser: string;
  let tgReminder: { id: number };
  const daveTask = `Renew the passport [dave-${run}]`;
  const erinMarker = `[erin-action-${run}]`;

  beforeAll(async () => {
    alice = { externalId: `alice-${run}`, userId: '', path: `/alice-${run}` };
    const marker = `[remind-${run}]`;
    await llm.addScript(marker, [
      {
        tool_calls: [viaRouter('set_reminder', { text: `stand up ${run}`, when: 'in 1 minute', task_id: '' })],
      },
      { content: 'Done: {{last_tool_result}}' },
    ]);
    const response = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
      body: JSON.stringify({
        message: `Remind me to stand up in a minute ${marker}`,
        user_id: alice.externalId,
        callback_url: `${callbackBase}${alice.path}`,
      }),
    });
    aliceReply = { status: response.status, body: (await response.json()) as Record<string, unknown> };
    alice.userId = (await resolveIdentity(db, 'api', alice.externalId)).userId;
    // Due at a whole minute, where the real minute tick and the fast tick run at the same moment: both try to fire it.
    await db.query(
      `UPDATE assistant.reminders SET due_at = date_trunc('minute', due_at) WHERE user_id = $1 AND status = 'scheduled'`,
      [alice.userId],
    );

    tgUser = (await resolveIdentity(db, 'telegram', String(TELEGRAM_CHAT))).userId;
    tgReminder = await reminderIn(tgUser, `drink water ${run}`, 'in 10 seconds');

    bob = await callbackUser('bob');
    await callbacks.fail(bob.path, 2);
    bobReminder = await reminderIn(bob.userId, `flaky ${run}`, 'in 10 seconds');

    carol = await callbackUser('carol');
    await callbacks.fail(carol.path, -1);
    await reminderIn(carol.userId, `never arrives ${run}`, 'in 10 seconds');

    dave = await apiUser('dave');
    await llm.addScript(daveTask, [{ content: `Heads up: ${daveTask} is overdue.` }]);
    await createTask(db, dave.userId, { title: daveTask, dueAt: new Date(Date.now() - 3_600_000).toISOString() });

    erin = await callbackUser('erin');
    await llm.addScript(erinMarker, [{ content: `Action done ${erinMarker}` }]);
    const scheduled = await scheduleAction(
      db,
      erin.userId,
      { instruction: `Say that the action ran ${erinMarker}`, schedule: 'every minute' },
      new Date(),
    );
    if (!scheduled.ok) throw new Error(scheduled.message);
    erinAction = scheduled.action.id;

    // A user whose locale is Austrian German asks in German; the model passes her own words on.
    gerda = await callbackUser('gerda');
    await updateUserSettings(db, gerda.userId, { locale: 'de-AT', timeZone: 'Europe/Vienna' });
    const gerdaMarker = `[erinnerung-${run}]`;
    await llm.addScript(gerdaMarker, [
      {
        tool_calls: [viaRouter('set_reminder', { text: `Wasser trinken ${run}`, when: 'in 10 Sekunden', task_id: '' })],
      },
      { content: 'Erledigt: {{last_tool_result}}' },
    ]);
    const sentAt = Date.now();
    const asked = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
      body: JSON.stringify({
        message: `Erinnere mich in 10 Sekunden ans Wassertrinken ${gerdaMarker}`,
        user_id: gerda.externalId,
      }),
    });
    gerdaReply = { status: asked.status, body: (await asked.json()) as Record<string, unknown>, sentAt };
  }, 180_000);

  it('sets a reminder through the webhook, in the words of the user, with a callback_url', () => {
    expect(aliceReply.status).toBe(200);
    expect(String(aliceReply.body.reply)).toMatch(/Reminder \d+ set for /);
  });

  it('delivers it by the first tick at or after its due time, once, to the signed callback', async () => {
    const received = await waitFor(
      async () => ((await callbacks.received(alice.path)).length > 0 ? callbacks.received(alice.path) : undefined),
      { timeoutMs: FEW_TICKS_MS, what: 'the reminder callback' },
    );
    const [row] = await outboxOf(alice.userId, 'reminder');
    const due = await dueAtOf(Number(row.data.reminder_id));
    await expectFirstTickAtOrAfter(row, due);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    const [hit] = received as ReceivedCallback[];
    expect(verifySignature(E2E_CALLBACK_SECRET, hit.body, hit.signature)).toBe(true);
    expect(JSON.parse(hit.body)).toMatchObject({
      id: Number(row.id),
      user_id: alice.externalId,
      kind: 'reminder',
      text: `⏰ Reminder: stand up ${run}`,
    });
    // Two ticks at that minute, and still exactly one message: wait for a later tick, then count.
    await waitFor(
      async () =>
        (await listTicks(db, new Date(Date.now() - 60_000))).some((t) => t.tickAt > row.delivered_at!.toISOString()),
      { timeoutMs: FEW_TICKS_MS, what: 'a later tick' },
    );
    expect(await callbacks.received(alice.path)).toHaveLength(1);
    expect(await outboxOf(alice.userId)).toHaveLength(1);
  });

  it('a German reminder over the webhook: read in her language and zone, delivered by the first tick after it', async () => {
    expect(gerdaReply.status).toBe(200);
    // Echoed back in German (weekday and month of de-AT), in Vienna's time.
    expect(String(gerdaReply.body.reply)).toMatch(
      /Reminder \d+ set for (Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d+\. \p{L}+ \d{4}, \d{2}:\d{2} Uhr \(Europe\/Vienna\)/u,
    );
    await waitFor(async () => (await callbacks.received(gerda.path)).length > 0, {
      timeoutMs: FEW_TICKS_MS,
      what: "gerda's reminder",
    });
    const [row] = await outboxOf(gerda.userId, 'reminder');
    const due = await dueAtOf(Number(row.data.reminder_id));
    // "in 10 Sekunden" from when she asked: not a default hour, not an English misreading.
    expect(due.getTime()).toBeGreaterThanOrEqual(gerdaReply.sentAt + 10_000);
    expect(due.getTime()).toBeLessThan(gerdaReply.sentAt + 40_000);
    await expectFirstTickAtOrAfter(row, due);
    expect(JSON.parse((await callbacks.received(gerda.path))[0].body)).toMatchObject({
      kind: 'reminder',
      text: `⏰ Reminder: Wasser trinken ${run}`,
    });
  });

  it('delivers through the Telegram Bot API, recording the message id', async () => {
    const sent = await telegram.waitForSent(TELEGRAM_CHAT, 1, FEW_TICKS_MS);
    expect(sent.map((m) => m.text)).toContain(`⏰ Reminder: drink water ${run}`);
    const [row] = await outboxOf(tgUser, 'reminder');
    expect(row).toMatchObject({ status: 'delivered' });
    expect(row.channel_message_id).toMatch(/^\d+$/);
    expect(Number(row.data.reminder_id)).toBe(tgReminder.id);
    await expectFirstTickAtOrAfter(row, await dueAtOf(tgReminder.id));
    expect((await telegram.sent(TELEGRAM_CHAT)).filter((m) => m.text.includes(`drink water ${run}`))).toHaveLength(1);
  });

  it('retries a callback that fails twice, then delivers it', async () => {
    await waitFor(async () => (await outboxOf(bob.userId))[0]?.status === 'delivered', {
      timeoutMs: FEW_TICKS_MS,
      what: "bob's delivery",
    });
    const received = await callbacks.received(bob.path);
    expect(received.map((r) => r.status)).toEqual([503, 503, 204]);
    expect(new Set(received.map((r) => JSON.parse(r.body).id)).size).toBe(1);
    const [row] = await outboxOf(bob.userId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(Number(row.data.reminder_id)).toBe(bobReminder.id);
  });

  it('a callback that always fails ends as a failed outbox row that the outbox endpoint still lists', async () => {
    await waitFor(async () => (await outboxOf(carol.userId))[0]?.status === 'failed', {
      timeoutMs: FEW_TICKS_MS,
      what: "carol's failed delivery",
    });
    expect(await callbacks.received(carol.path)).toHaveLength(3);
    const response = await stack.webhook(`agent/outbox?user_id=${encodeURIComponent(carol.externalId)}&after=0`, {
      headers: { 'x-api-key': E2E_ASSISTANT_API_KEY },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages: Array<Record<string, unknown>> };
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]).toMatchObject({ kind: 'reminder', status: 'failed', attempts: 3 });
    expect(String(body.messages[0].last_error)).toContain('gave up after 3 attempts');

    // Failure awareness: the failed delivery is a failure of carol's, and the agent can say so.
    const marker = `[failed-today-${run}]`;
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('list_failures', { since: '' })] },
      { content: 'Here is what failed: {{last_tool_result}}' },
    ]);
    const asked = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
      body: JSON.stringify({ message: `Did anything fail today? ${marker}`, user_id: carol.externalId }),
    });
    expect(asked.status).toBe(200);
    const { reply } = (await asked.json()) as { reply: string };
    expect(reply).toContain('could not be delivered: gave up after 3 attempts: the callback answered HTTP 503');
    expect(reply).toContain('(3 attempts)');
  });

  it('the outbox endpoint: listed after an id, key required, bad query and unknown users named', async () => {
    const headers = { 'x-api-key': E2E_ASSISTANT_API_KEY };
    const list = async (query: string, init: RequestInit = { headers }) => {
      const response = await stack.webhook(`agent/outbox?${query}`, init);
      const body = (await response.json()) as { messages: Array<{ kind: string }>; next_after: number };
      return { status: response.status, body };
    };
    const all = await list(`user_id=${alice.externalId}`);
    expect(all.status).toBe(200);
    expect(all.body.messages.map((m) => m.kind)).toEqual(['reminder']);
    const after = await list(`user_id=${alice.externalId}&after=${all.body.next_after}`);
    expect(after.body.messages).toEqual([]);
    expect((await list(`user_id=${alice.externalId}`, {})).status).toBe(401);
    const bad = await list(`user_id=${alice.externalId}&after=x`);
    expect(bad).toMatchObject({ status: 400, body: { error: { field: 'after' } } });
    const unknown = await list(`user_id=nobody-${run}`);
    expect(unknown).toMatchObject({ status: 404, body: { error: { field: 'user_id' } } });
  });

  it('refuses a callback_url the outbound guard refuses, naming the field', async () => {
    const response = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
      body: JSON.stringify({ message: 'hi', user_id: `guarded-${run}`, callback_url: 'http://127.0.0.1:9/hook' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { field: string; message: string } };
    expect(body.error.field).toBe('callback_url');
    expect(body.error.message).toMatch(/^callback_url: /);
  });

  it('the heartbeat nudges about an overdue task once, and an idle heartbeat calls no model', async () => {
    await waitFor(async () => (await outboxOf(dave.userId, 'nudge')).length > 0, {
      timeoutMs: FEW_TICKS_MS,
      what: "dave's nudge",
    });
    const [nudge] = await outboxOf(dave.userId, 'nudge');
    expect(nudge.text).toBe(`Heads up: ${daveTask} is overdue.`);
    const { tick } = await tickOf(nudge);
    expect(tick.heartbeat).toBe(true);
    const phrased = await llm.requests('[heartbeat nudge]');
    expect(phrased.filter((r) => JSON.stringify(r.body).includes(daveTask))).toHaveLength(1);
    // Two more heartbeats (one a minute now): nothing new to say, so no nudge and no model call.
    const calls = phrased.length;
    const since = new Date();
    await waitFor(async () => (await listTicks(db, since)).filter((t) => t.heartbeat && t.finishedAt).length >= 2, {
      timeoutMs: FEW_TICKS_MS,
      what: 'two more heartbeats',
    });
    expect(await outboxOf(dave.userId, 'nudge')).toHaveLength(1);
    expect(await llm.requests('[heartbeat nudge]')).toHaveLength(calls);
  });

  it('a recurring action every minute runs on two consecutive ticks and delivers its results', async () => {
    await waitFor(async () => (await callbacks.received(erin.path)).length >= 2, {
      timeoutMs: FEW_TICKS_MS,
      what: "two of erin's action results",
    });
    const runs = await db.query<{ tick_id: string; status: string }>(
      'SELECT tick_id, status FROM assistant.action_runs WHERE action_id = $1 ORDER BY id',
      [erinAction],
    );
    const ticks = await listTicks(db, started);
    const minuteOf = (tickId: string) => Date.parse(ticks.find((t) => String(t.id) === tickId)!.tickAt);
    const [first, second] = runs.rows;
    expect(minuteOf(second.tick_id) - minuteOf(first.tick_id)).toBe(60_000);
    const texts = (await callbacks.received(erin.path)).map(
      (r) => JSON.parse(r.body) as { kind: string; text: string },
    );
    expect(texts.slice(0, 2)).toEqual([
      expect.objectContaining({ kind: 'action', text: `Action done ${erinMarker}` }),
      expect.objectContaining({ kind: 'action', text: `Action done ${erinMarker}` }),
    ]);
    await db.query('DELETE FROM assistant.scheduled_actions WHERE id = $1', [erinAction]);
  });

  it('the real minute trigger fires beside the fast tick: two ticks at each whole minute, one every 5 s between', async () => {
    const whole = (at: string) => Date.parse(at) % 60_000 === 0;
    const from = fastTickFrom + 10_000;
    const window = async () => {
      const ticks = await listTicks(db, new Date(from));
      return ticks.filter((t) => Date.parse(t.tickAt) >= from && Date.parse(t.tickAt) <= Date.now() - 10_000);
    };
    await waitFor(async () => new Set((await window()).map((t) => t.tickAt).filter(whole)).size >= 2, {
      timeoutMs: FEW_TICKS_MS,
      what: 'two whole minutes in the ledger',
    });
    const ticks = await window();
    const steps = [...new Set(ticks.map((t) => t.tickAt))].sort();
    for (let i = 1; i < steps.length; i++) {
      expect(Date.parse(steps[i]) - Date.parse(steps[i - 1]), `the step before ${steps[i]}`).toBe(
        FAST_TICK_SECONDS * 1000,
      );
    }
    const perStep = steps.map((at) => [at, ticks.filter((t) => t.tickAt === at).length]);
    expect(perStep).toEqual(steps.map((at) => [at, whole(at) ? 2 : 1]));
  });

  it('a reminder that falls due while n8n is down is delivered after the restart, once, marked late', async () => {
    const frank = await callbackUser('frank');
    const reminder = await reminderIn(frank.userId, `while down ${run}`, 'in 20 seconds');
    const due = await dueAtOf(reminder.id);
    const restartedAt = new Date();
    await stack.restartN8n(150_000);
    await waitFor(async () => (await callbacks.received(frank.path)).length > 0, {
      timeoutMs: FEW_TICKS_MS,
      what: "frank's late reminder",
    });
    const [row] = await outboxOf(frank.userId);
    const { tick } = await tickOf(row);
    expect(new Date(tick.startedAt).getTime()).toBeGreaterThan(restartedAt.getTime() + 150_000);
    expect(row.data).toMatchObject({ late: true });
    expect(Number(row.data.late_seconds)).toBeGreaterThan(120);
    expect(new Date(tick.startedAt).getTime()).toBeGreaterThan(due.getTime());
    await waitFor(
      async () => (await listTicks(db, new Date(tick.startedAt))).some((t) => t.tickAt > tick.tickAt && t.finishedAt),
      { timeoutMs: FEW_TICKS_MS, what: 'a tick after the late delivery' },
    );
    expect(await callbacks.received(frank.path)).toHaveLength(1);
    // The gap in the ledger is recorded as an outage on the first tick after the restart.
    const outages = await db.query<{ message: string; occurred_at: Date }>(
      `SELECT message, occurred_at FROM assistant.failures WHERE source = 'outage' AND occurred_at > $1`,
      [restartedAt],
    );
    expect(outages.rows).toHaveLength(1);
    expect(outages.rows[0].message).toMatch(/^down from .* to .*; \d+ reminders? delivered late$/);
  }, 600_000);
});
