// Slack on the real n8n + Postgres 17, against the loopback Slack (test/fakes/slack-api.ts, started here; n8n reaches
// it through the Assistant Slack App credential's Web API URL): the Slack entry switched on holds the Socket Mode
// connection; the owner's DM is acknowledged, stored and answered in the DM by chat.postMessage; a stranger gets the
// refusal and nothing of theirs is stored; a reminder for a user reached on Slack is delivered to their DM by the tick.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueMessage, resolveIdentity, runMigrations } from 'assistant-core';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { startSlackFake, type SlackFake } from '../fakes/slack-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { postgresCredentialData } from './setup/postgres-credential';
import { startFastTick } from './setup/fast-tick';

const run = Math.random().toString(36).slice(2, 8).toUpperCase();
const OWNER = `U0OWN${run}`;
const STRANGER = `U0STR${run}`;
const BOT_TOKEN = 'xoxb-e2e-slack-bot-token';
const APP_TOKEN = 'xapp-1-e2e-slack-app-token';
const ENTRY = 'asstSlackEntry01';

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let slack: SlackFake;
let db: Pool;
let stopFastTick: (() => Promise<void>) | undefined;

const waitFor = async <T>(what: string, check: () => T | undefined | false, ms = 90_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  slack = await startSlackFake({ botToken: BOT_TOKEN, appToken: APP_TOKEN, signingSecret: 'e2e-slack-signing' });
  await stack.api('/credentials/asstSlackApp0001', {
    method: 'PATCH',
    body: {
      data: {
        botToken: BOT_TOKEN,
        appToken: APP_TOKEN,
        signingSecret: 'e2e-slack-signing',
        ownerUserId: OWNER,
        apiUrl: slack.apiUrl,
      },
    },
  });
  await stack.api(`/workflows/${ENTRY}/activate`, { method: 'POST' });
  await waitFor('the Socket Mode connection', () => slack.connections() > 0, 30_000);
}, 120_000);

afterAll(async () => {
  await stopFastTick?.();
  await stack?.api(`/workflows/${ENTRY}/deactivate`, { method: 'POST' }).catch(() => undefined);
  await slack?.close();
  await db?.end();
});

describe('Slack over Socket Mode', () => {
  it("answers the owner's DM in the DM: acknowledged, stored, the agent's reply posted", async () => {
    const marker = `[slack-${run}]`;
    await llm.addScript(marker, [{ content: `Hello from the assistant ${marker} **done**` }]);
    const envelope = await slack.sendMessage(OWNER, `what is new? ${marker}`);
    expect(envelope.acked).toBe(true);
    const reply = await waitFor('the reply', () => slack.posted(OWNER).find((m) => m.text.includes(marker)));
    expect(reply.text).toBe(`Hello from the assistant ${marker} *done*`);
    expect(reply.thread_ts).toBeUndefined();
    const user = (await resolveIdentity(db, 'slack', OWNER)).userId;
    const stored = await db.query(`SELECT session_id FROM assistant.turns WHERE user_id = $1 AND content = $2`, [
      user,
      `what is new? ${marker}`,
    ]);
    expect(stored.rows).toEqual([{ session_id: `slack:D${OWNER.slice(1)}` }]);
  });

  it('refuses a stranger in one sentence and stores nothing of theirs', async () => {
    const envelope = await slack.sendMessage(STRANGER, 'hello, who are you?');
    expect(envelope.acked).toBe(true);
    const refusal = await waitFor('the refusal', () => slack.posted(STRANGER)[0]);
    expect(refusal.text).toBe('Sorry, this is a private assistant.');
    const identity = await db.query(`SELECT 1 FROM assistant.identities WHERE identity = $1`, [`slack:${STRANGER}`]);
    expect(identity.rows).toHaveLength(0);
  });

  it("delivers a reminder to a Slack user's DM through the outbox", async () => {
    stopFastTick = await startFastTick(stack, `e2e fast tick (slack ${run})`);
    const reader = `U0RMD${run}`;
    const { userId } = await resolveIdentity(db, 'slack', reader);
    const text = `Reminder ${run}: water the plants`;
    const { message } = await queueMessage(db, userId, { kind: 'reminder', text });
    expect(message).toMatchObject({ channel: 'slack', target: reader, status: 'pending' });
    const posted = await waitFor('the reminder', () => slack.posted(reader).find((m) => m.text === text));
    expect(posted.channel).toBe(`D${reader.slice(1)}`);
    const deadline = Date.now() + 30_000;
    let receipt: { status: string; channel_message_id: string | null } | undefined;
    while (Date.now() < deadline) {
      const rows = await db.query(`SELECT status, channel_message_id FROM assistant.outbox WHERE id = $1`, [
        message.id,
      ]);
      receipt = rows.rows[0];
      if (receipt?.status !== 'sending') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(receipt).toEqual({ status: 'delivered', channel_message_id: posted.ts });
  });
});
