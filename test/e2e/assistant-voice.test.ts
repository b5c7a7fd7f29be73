// Voice messages on the real n8n + Postgres 17: a real OGG/Opus voice note (espeak-ng + opusenc), served by the fake
// Bot API's getFile and file download, is transcribed through the OpenAI-compatible transcription endpoint (the fake
// answers the transcript the test registered for that audio), stored as the user's turn, and answered like text; without a transcription service the bot answers
// in one sentence how to set it up, and nothing is stored.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity, runMigrations, updateInstanceSettings } from 'assistant-core';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { speak } from '../fakes/speech';
import { e2eStack, type E2EStack } from './setup/harness';
import { postgresCredentialData } from './setup/postgres-credential';

const run = Math.random().toString(36).slice(2, 8);
const OWNER_CHAT = 4242001;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;

// On: the model gateway's transcription route (the fake behind it); off: no base URL.
const setTranscription = (on: boolean) =>
  stack.api('/credentials/asstTranscribe01', {
    method: 'PATCH',
    body: {
      data: {
        baseUrl: on ? `${stack.gateway.url}/transcription/v1` : '',
        apiKey: stack.gateway.key,
        model: 'whisper-1',
      },
    },
  });

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
});

afterAll(async () => {
  await setTranscription(false).catch(() => undefined);
  await db?.end();
});

describe('voice messages on Telegram', () => {
  it('transcribes a voice note, stores the transcript as the turn and answers it', async () => {
    await setTranscription(true);
    const marker = `[voice-${run}]`;
    await llm.addScript(marker, [{ content: 'Heard you: {{last_tool_result}}' }]);
    const spoken = `what is on my list today ${marker}`;
    const audio = speak('what is on my list today');
    await llm.addTranscript(audio, spoken);
    const before = (await telegram.sent(OWNER_CHAT)).length;
    const delivered = await telegram.deliverVoice(OWNER_CHAT, audio);
    expect(delivered.status).toBe(200);
    const sent = await telegram.waitForSent(OWNER_CHAT, before + 1, 60_000);
    expect(sent.at(-1)?.text).toContain('Heard you');
    // The model got the transcript as the user's message; the turn stores it.
    const requests = await llm.requests(marker);
    expect(JSON.stringify(requests[0]?.body.messages ?? [])).toContain(spoken);
    const user = (await resolveIdentity(db, 'telegram', String(OWNER_CHAT))).userId;
    const stored = await db.query(`SELECT content FROM assistant.turns WHERE user_id = $1 AND content = $2`, [
      user,
      spoken,
    ]);
    expect(stored.rows).toHaveLength(1);
    // Both model calls went through the gateway and are in its ledger, with their callers.
    const ledger = await db.query<{ job: string; user_id: string | null; route: string; outcome: string }>(
      `SELECT job, user_id, route, outcome FROM assistant.model_calls WHERE at > now() - interval '2 minutes'
        AND (job = 'transcription' OR user_id = $1) ORDER BY id`,
      [user],
    );
    expect(ledger.rows).toContainEqual({ job: 'transcription', user_id: null, route: 'transcriptions', outcome: 'ok' });
    expect(ledger.rows).toContainEqual({ job: 'agent', user_id: user, route: 'chat', outcome: 'ok' });
  });

  it('without a transcription service, answers in one sentence how to enable it, and stores nothing', async () => {
    await setTranscription(false);
    const user = (await resolveIdentity(db, 'telegram', String(OWNER_CHAT))).userId;
    const turnsBefore = await db.query(`SELECT count(*) FROM assistant.turns WHERE user_id = $1`, [user]);
    const before = (await telegram.sent(OWNER_CHAT)).length;
    await telegram.deliverVoice(OWNER_CHAT, speak('please transcribe me'));
    const sent = await telegram.waitForSent(OWNER_CHAT, before + 1, 60_000);
    expect(sent.at(-1)?.text).toBe(
      'I can only read text for now: to send voice messages, set up the Assistant Transcription credential (docs/VOICE.md).',
    );
    const turnsAfter = await db.query(`SELECT count(*) FROM assistant.turns WHERE user_id = $1`, [user]);
    expect(turnsAfter.rows[0].count).toBe(turnsBefore.rows[0].count);
  });
});
