// Several people on one install, on the real n8n + Postgres 17 with the loopback Telegram and a scripted model: a
// stranger on Telegram is refused under the owner policy and told to pair under the pairing policy (neither reaches
// the model, nothing of theirs is stored); the owner gets a one-time code through the agent (issue_pairing_code, on
// the owner's yes); a wrong and an expired code are refused; the stranger pairs with the good one and becomes a user
// of their own, whose memories the owner's agent does not see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'pg';
import { issuePairingCode, runMigrations, setDmPolicy, updateInstanceSettings } from 'assistant-core';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials } from './setup/assistant';
import { callTool } from './setup/tool-calls';

const OWNER_CHAT = 4242040;
const STRANGER_CHAT = 7070401;
const LATE_CHAT = 7070402;
const run = Math.random().toString(36).slice(2, 8);

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;

const userOf = async (identity: string): Promise<string | undefined> =>
  (await db.query<{ user_id: string }>('SELECT user_id FROM assistant.identities WHERE identity = $1', [identity]))
    .rows[0]?.user_id;

/** Sends `text` from `chat` and waits for the next message(s) the bot sends there; their texts. */
async function say(chat: number, text: string, replies = 1, replyTo?: number) {
  const before = (await telegram.sent(chat)).length;
  const delivered = await telegram.deliverText(chat, text, undefined, replyTo);
  expect(delivered.status).toBe(200);
  return (await telegram.waitForSent(chat, before + replies, 120_000)).slice(before);
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  await configureAssistantCredentials(stack);
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
  await setDmPolicy(db, { channel: 'telegram', policy: 'owner' });
});

afterAll(async () => {
  // The other files' owner-only Telegram, as setup leaves it.
  if (db) await setDmPolicy(db, { channel: 'telegram', policy: 'owner' });
  await db?.end();
});

describe('several people on one install (Telegram)', () => {
  it('refuses a stranger under the owner policy: no model call, no user, no turn', async () => {
    const marker = `[people-stranger-${run}]`;
    const [refusal] = await say(STRANGER_CHAT, `${marker} hello`);
    expect(refusal.text).toBe('Sorry, this is a private assistant.');
    expect(await userOf(`telegram:${STRANGER_CHAT}`)).toBeUndefined();
    expect((await db.query('SELECT 1 FROM assistant.turns WHERE content LIKE $1', [`%${marker}%`])).rowCount).toBe(0);
    expect(await llm.requests(marker)).toEqual([]);
  });

  it('tells a stranger to pair under the pairing policy, still without the model', async () => {
    await setDmPolicy(db, { channel: 'telegram', policy: 'pairing' });
    const marker = `[people-pairing-${run}]`;
    const [prompt] = await say(STRANGER_CHAT, `${marker} hello again`);
    expect(prompt.text).toBe(
      'This assistant is private. If its owner gave you a pairing code, send the code here as your message.',
    );
    expect(await userOf(`telegram:${STRANGER_CHAT}`)).toBeUndefined();
    expect(await llm.requests(marker)).toEqual([]);
  });

  let code = '';
  it('gives the owner a one-time code through the agent, once the owner said yes', async () => {
    const marker = `[people-code-${run}]`;
    await llm.addScript(marker, [
      callTool('issue_pairing_code', { person_name: 'Ana' }),
      { content: 'Code: {{last_tool_result}}' },
    ]);
    const [question] = await say(OWNER_CHAT, `${marker} Give me a pairing code for my sister Ana`);
    expect(question.text).toMatch(
      /^May I issue a one-time pairing code: a new person \(owner\) or another channel of yours \(person_name: Ana\)\?/,
    );
    const answered = await say(OWNER_CHAT, 'yes', 2, question.message_id);
    const reply = answered.find((message) => message.text.startsWith('Code:'));
    const found = reply?.text.match(/Pairing code ([A-Z2-9]{4}-[A-Z2-9]{4}) \(lets Ana in as a new person\)/);
    expect(found, JSON.stringify(answered)).not.toBeNull();
    code = found![1];
    // Only its hash is stored.
    const stored = await db.query('SELECT code_hash FROM assistant.pairing_codes');
    expect(JSON.stringify(stored.rows)).not.toContain(code.replace('-', ''));
  });

  it('refuses a wrong code and an expired one', async () => {
    const [wrong] = await say(STRANGER_CHAT, 'ZZZZ-ZZZZ');
    expect(wrong.text).toBe('That code is not valid (wrong, expired or already used). Ask the owner for a new one.');
    const owner = (await userOf(`telegram:${OWNER_CHAT}`))!;
    const expired = await issuePairingCode(db, {
      callerUserId: owner,
      personName: 'Late',
      minutes: 1,
      now: new Date(Date.now() - 5 * 60_000),
    });
    const [late] = await say(LATE_CHAT, expired.code);
    expect(late.text).toBe('That code is not valid (wrong, expired or already used). Ask the owner for a new one.');
    expect(await userOf(`telegram:${LATE_CHAT}`)).toBeUndefined();
  });

  it('pairs the stranger with the code: a user of their own, whose memories the owner does not see', async () => {
    const [paired] = await say(STRANGER_CHAT, code.toLowerCase());
    expect(paired.text).toContain('You are paired, Ana.');
    const ana = await userOf(`telegram:${STRANGER_CHAT}`);
    const owner = await userOf(`telegram:${OWNER_CHAT}`);
    expect(ana).toBeDefined();
    expect(ana).not.toBe(owner);

    const fact = `Ana keeps bees ${run}`;
    const tell = `[people-tell-${run}]`;
    await llm.addScript(tell, [callTool('remember_memory', { content: fact }), { content: 'Noted.' }]);
    const [noted] = await say(STRANGER_CHAT, `${tell} remember that I keep bees`);
    expect(noted.text).toBe('Noted.');
    const memories = async (user: string | undefined) =>
      (
        await db.query<{ content: string }>('SELECT content FROM assistant.memories WHERE user_id = $1', [user])
      ).rows.map((row) => row.content);
    expect(await memories(ana)).toContain(fact);
    expect(await memories(owner)).not.toContain(fact);

    const recall = `[people-recall-${run}]`;
    await llm.addScript(recall, [
      callTool('recall_memories', { query: `bees ${run}` }),
      { content: 'Found: {{last_tool_result}}' },
    ]);
    const [ownerAnswer] = await say(OWNER_CHAT, `${recall} who keeps bees?`);
    expect(ownerAnswer.text).toMatch(/^Found:/);
    expect(ownerAnswer.text).not.toContain(fact);
    // The code was for one use: it pairs nobody else.
    const [again] = await say(LATE_CHAT, code);
    expect(again.text).toContain('not valid');
  });
});
