// The assistant on the real n8n + Postgres 17: the agent workflow (workflows/assistant-agent.json) and its tool
// sub-workflows, driven over POST /webhook/agent and a loopback Telegram, with a scripted fake LLM that calls the
// tools as a model would. Every check reads what n8n answered or what landed in Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { WORKFLOWS_DIR } from '../../scripts/runtime/stack';
import { e2eStack, type E2EStack } from './setup/harness';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import {
  E2E_LLM_API_KEY,
  E2E_SMALL_WINDOW,
  E2E_SMALL_WINDOW_MODEL,
  E2E_TELEGRAM_BOT_TOKEN,
} from '../fakes/assistant-e2e-fakes';
import { findSecrets } from '../workflows/find-secrets';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import {
  registerTelegramWebhook,
  runMigrations,
  storeTurn,
  telegramWebhookRegistration,
  updateInstanceSettings,
  type TelegramEntryWorkflow,
} from 'assistant-core';
import { postgresCredentialData } from './setup/postgres-credential';
import { viaRouter } from './setup/tool-calls';

const API_KEY = E2E_ASSISTANT_API_KEY;
const OWNER_CHAT = 4242001;
const STRANGER_CHAT = 9090909;
const run = Math.random().toString(36).slice(2, 8);
const tag = (name: string) => `[${name}-${run}]`;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;

async function ask(
  message: string,
  userId: string,
  sessionId?: string,
  key: string | null = API_KEY,
): Promise<{ status: number; body: Record<string, unknown>; contentType: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-api-key'] = key;
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers,
    body: JSON.stringify({ message, user_id: userId, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : {},
    contentType: response.headers.get('content-type'),
  };
}

async function userIdOf(identity: string): Promise<string | undefined> {
  const found = await db.query<{ user_id: string }>('SELECT user_id FROM assistant.identities WHERE identity = $1', [
    identity,
  ]);
  return found.rows[0]?.user_id;
}

/** Plays a conversation: the model calls the tools of `steps`, then answers with the last tool's result. */
async function converse(name: string, steps: ScriptStep[]): Promise<string> {
  const marker = tag(name);
  await llm.addScript(marker, steps);
  return marker;
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  // What an operator does after install: set the API key and point the Postgres credential at the database.
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: {
      data: postgresCredentialData(stack.postgresUrl),
    },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  // Failure reports to the owner's chat would interleave with the chat messages these tests count.
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
});

afterAll(async () => {
  await db?.end();
});

describe('assistant webhook: authentication and validation', () => {
  it('answers 401 without a key and 403 with a wrong one, as JSON', async () => {
    const missing = await ask('hello', 'alice', undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.contentType).toMatch(/application\/json/);
    expect(missing.body).toMatchObject({ error: { code: 'unauthenticated' } });
    const wrong = await ask('hello', 'alice', undefined, 'not-the-key');
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: { code: 'forbidden' } });
  });

  it('answers 400 naming the field for a bad body, and never calls the model', async () => {
    const marker = tag('bad-body');
    const noUser = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: JSON.stringify({ message: marker }),
    });
    expect(noUser.status).toBe(400);
    expect(await noUser.json()).toMatchObject({ error: { code: 'invalid_request', field: 'user_id' } });
    const empty = await ask('   ', 'alice');
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: { field: 'message' } });
    const notJson = await stack.webhook('agent', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': API_KEY },
      body: `just text ${marker}`,
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { field: 'body' } });
    expect(await llm.requests(marker)).toEqual([]);
  });
});

describe('assistant memory', () => {
  it('recalls a fact told in one session in another, and finds a person by first name', async () => {
    const tell = await converse('tell', [
      {
        tool_calls: [
          viaRouter('remember_memory', { content: 'My accountant is Stefan Huber.', people: 'Stefan Huber' }),
        ],
      },
      { content: 'Noted.' },
    ]);
    const told = await ask(`${tell} My accountant is Stefan Huber.`, 'alice', 'session-one');
    expect(told).toMatchObject({ status: 200, body: { reply: 'Noted.', user_id: 'alice', session_id: 'session-one' } });

    const alice = await userIdOf('api:alice');
    const stored = await db.query('SELECT content, people FROM assistant.memories WHERE user_id = $1', [alice]);
    expect(stored.rows).toContainEqual({ content: 'My accountant is Stefan Huber.', people: ['Stefan Huber'] });

    const question = await converse('recall', [
      { tool_calls: [viaRouter('recall_memories', { query: 'Stefan' })] },
      { content: '{{last_tool_result}}' },
    ]);
    const answer = await ask(`${question} Who is Stefan?`, 'alice', 'session-two');
    expect(answer.status).toBe(200);
    expect(answer.body.session_id).toBe('session-two');
    expect(String(answer.body.reply)).toContain('My accountant is Stefan Huber.');
  });

  it('keeps users apart: another webhook user and a Telegram user see nothing of it', async () => {
    const bobAsks = await converse('bob', [
      { tool_calls: [viaRouter('recall_memories', { query: 'Stefan accountant' })] },
      { content: '{{last_tool_result}}' },
    ]);
    const bob = await ask(`${bobAsks} Who is Stefan?`, 'bob');
    expect(bob.status).toBe(200);
    expect(String(bob.body.reply)).not.toContain('Stefan Huber');
    expect(await userIdOf('api:bob')).not.toBe(await userIdOf('api:alice'));

    const ownerAsks = await converse('owner-recall', [
      { tool_calls: [viaRouter('recall_memories', { query: 'Stefan accountant' })] },
      { content: 'Found: {{last_tool_result}}' },
    ]);
    const earlier = (await telegram.sent(OWNER_CHAT)).length;
    const delivered = await telegram.deliverText(OWNER_CHAT, `${ownerAsks} Who is Stefan?`);
    expect(delivered.status).toBe(200);
    const sent = await telegram.waitForSent(OWNER_CHAT, earlier + 1);
    expect(sent.length).toBe(earlier + 1);
    expect(sent.at(-1)?.text).toContain('Found:');
    expect(sent.at(-1)?.text).not.toContain('Stefan Huber');

    // A webhook caller naming the owner's Telegram identity gets a user of its own, not the owner's.
    const ownerUser = await userIdOf(`telegram:${OWNER_CHAT}`);
    expect(ownerUser).toBeDefined();
    const sneaky = await converse('sneaky', [{ content: 'hi' }]);
    await ask(`${sneaky} hello`, `telegram:${OWNER_CHAT}`);
    expect(await userIdOf(`api:telegram:${OWNER_CHAT}`)).not.toBe(ownerUser);
  });
});

describe('Telegram webhook with a self-signed certificate (setup.sh without a domain)', () => {
  it("derives exactly the registration n8n's trigger made; re-registered with the certificate, updates still arrive", async () => {
    const registered = await telegram.webhook();
    expect(registered?.url).toMatch(/\/webhook\/[0-9a-f-]{36}\/webhook$/);
    const base = registered!.url.replace(/webhook\/[^/]+\/webhook$/, '');
    const workflow = await stack.api<TelegramEntryWorkflow>('/workflows/assistantTelegrm');
    const registration = telegramWebhookRegistration(workflow, base);
    expect(registration).toEqual({
      url: registered!.url,
      secretToken: registered!.secret_token,
      allowedUpdates: registered!.allowed_updates ?? [],
    });

    const dir = mkdtempSync(path.join(tmpdir(), 'e2e-cert-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    const certificatePem = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    await registerTelegramWebhook({
      apiBaseUrl: stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL,
      botToken: E2E_TELEGRAM_BOT_TOKEN,
      registration,
      certificatePem,
    });
    expect((await telegram.webhook())?.certificate).toBe(certificatePem);

    const marker = await converse('after-certificate', [{ content: 'Still here.' }]);
    const earlier = (await telegram.sent(OWNER_CHAT)).length;
    const delivered = await telegram.deliverText(OWNER_CHAT, `${marker} are you there?`);
    expect(delivered.status).toBe(200);
    const sent = await telegram.waitForSent(OWNER_CHAT, earlier + 1);
    expect(sent.at(-1)?.text).toContain('Still here.');
  });
});

describe('assistant knowledge graph and tasks', () => {
  it('builds a graph from a conversation and queries it', async () => {
    const build = await converse('graph', [
      {
        tool_calls: [
          viaRouter('upsert_entity', { name: 'Maria Gruber', entity_type: 'person', summary: 'a colleague' }),
          viaRouter('upsert_entity', { name: 'Acme Robotics', entity_type: 'company', summary: 'robot maker' }),
        ],
      },
      {
        tool_calls: [viaRouter('relate_entities', { from: 'Maria Gruber', relation: 'works_at', to: 'Acme Robotics' })],
      },
      { content: 'Got it.' },
    ]);
    expect((await ask(`${build} Maria Gruber works at Acme Robotics.`, 'carol')).status).toBe(200);

    const query = await converse('graph-query', [
      { tool_calls: [viaRouter('query_graph', { name: 'Acme Robotics' })] },
      { content: '{{last_tool_result}}' },
    ]);
    const answer = await ask(`${query} Who works at Acme?`, 'carol');
    expect(answer.status).toBe(200);
    expect(String(answer.body.reply)).toContain('Maria Gruber');
    expect(String(answer.body.reply)).toContain('works_at');
  });

  it('creates, lists overdue, updates, completes and deletes tasks', async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const nextWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const create = await converse('tasks-create', [
      {
        tool_calls: [
          viaRouter('create_task', { title: 'File the tax return', due: yesterday, priority: 'urgent' }),
          viaRouter('create_task', { title: 'Buy a birthday present', due: nextWeek, priority: 'low' }),
        ],
      },
      { content: 'Both tasks created.' },
    ]);
    expect((await ask(`${create} two tasks please`, 'dave')).body.reply).toBe('Both tasks created.');
    const dave = await userIdOf('api:dave');
    const rows = await db.query<{ id: number; title: string }>(
      'SELECT id, title FROM assistant.tasks WHERE user_id = $1 ORDER BY id',
      [dave],
    );
    // The two tool calls run in parallel, so either may be stored first.
    expect(rows.rows.map((row) => row.title).sort()).toEqual(['Buy a birthday present', 'File the tax return']);
    // Task ids are bigint, which pg returns as strings; a model sends numbers.
    const taxes = Number(rows.rows.find((row) => row.title === 'File the tax return')!.id);
    const present = Number(rows.rows.find((row) => row.title === 'Buy a birthday present')!.id);

    const overdue = await converse('tasks-overdue', [
      { tool_calls: [viaRouter('list_tasks', { filter: 'overdue', priority: '' })] },
      { content: '{{last_tool_result}}' },
    ]);
    const listed = String((await ask(`${overdue} what is overdue?`, 'dave')).body.reply);
    expect(listed).toContain('File the tax return');
    expect(listed).not.toContain('Buy a birthday present');

    const change = await converse('tasks-update', [
      {
        tool_calls: [
          viaRouter('update_task', { task_id: present, title: 'Buy a present for Anna', due: '', priority: 'high' }),
        ],
      },
      { tool_calls: [viaRouter('complete_task', { task_id: taxes })] },
      { tool_calls: [viaRouter('delete_task', { task_id: present })] },
      { content: 'Done.' },
    ]);
    const changed = await ask(`${change} rename, finish, delete`, 'dave');
    expect(changed.status).toBe(200);
    const after = await db.query(
      'SELECT id::int AS id, title, status FROM assistant.tasks WHERE user_id = $1 ORDER BY id',
      [dave],
    );
    expect(after.rows).toEqual([{ id: taxes, title: 'File the tax return', status: 'done' }]);
    const renamed = await llm.requests(change);
    expect(JSON.stringify(renamed.at(-1)?.body.messages)).toContain('Buy a present for Anna');
  });
});

describe('assistant on Telegram', () => {
  it('accepts a Telegram update only with the secret token of this installation, not one derived from the repo', async () => {
    const committed = JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, 'assistant-telegram.json'), 'utf8')) as {
      id: string;
      nodes: Array<{ id: string; type: string; webhookId?: string }>;
    };
    const trigger = committed.nodes.find((node) => node.type === 'n8n-nodes-base.telegramTrigger')!;
    // n8n 2.41.1 derives the secret as "<workflow id>_<node id>": what a forger would compute from the repo.
    const publicSecret = `${committed.id}_${trigger.id}`.replace(/[^a-zA-Z0-9_-]+/g, '');
    const registered = await telegram.webhook();
    expect(registered?.url).toMatch(new RegExp(`^${stack.webhookUrl}/[0-9a-f-]{36}/webhook$`));
    expect(registered!.url).not.toContain(trigger.webhookId);
    expect(registered!.secret_token).toMatch(/^[A-Za-z0-9_-]{30,}$/);
    expect(registered!.secret_token).not.toBe(publicSecret);

    const marker = await converse('secret-token', [{ content: 'genuine update answered' }]);
    const update = (text: string) =>
      JSON.stringify({
        update_id: 555001,
        message: {
          message_id: 1,
          from: { id: OWNER_CHAT, is_bot: false, first_name: 'Owner' },
          chat: { id: OWNER_CHAT, type: 'private' },
          date: Math.floor(Date.now() / 1000),
          text,
        },
      });
    const post = (url: string, secret?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
        },
        body: update(`${marker} forged`),
      });
    for (const secret of [undefined, '', 'guess', publicSecret]) {
      const forged = await post(registered!.url, secret);
      expect(forged.status).toBe(403);
    }
    // The committed webhook path is not registered at all.
    expect((await post(`${stack.webhookUrl}/${trigger.webhookId}/webhook`, publicSecret)).status).toBe(404);
    expect(await llm.requests(marker)).toEqual([]);
    expect((await db.query('SELECT 1 FROM assistant.turns WHERE content LIKE $1', [`%${marker}%`])).rowCount).toBe(0);

    const before = (await telegram.sent(OWNER_CHAT)).length;
    const genuine = await fetch(registered!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': registered!.secret_token! },
      body: update(`${marker} genuine`),
    });
    expect(genuine.status).toBe(200);
    const sent = await telegram.waitForSent(OWNER_CHAT, before + 1);
    expect(sent.at(-1)?.text).toBe('genuine update answered');
  });

  it('refuses a chat that is not the owner and stores nothing of it', async () => {
    const marker = tag('stranger');
    const delivered = await telegram.deliverText(STRANGER_CHAT, `${marker} hello, who are you?`);
    expect(delivered.status).toBe(200);
    const sent = await telegram.waitForSent(STRANGER_CHAT, 1);
    expect(sent.map((message) => message.text)).toEqual(['Sorry, this is a private assistant.']);
    expect(await userIdOf(`telegram:${STRANGER_CHAT}`)).toBeUndefined();
    const turns = await db.query('SELECT 1 FROM assistant.turns WHERE content LIKE $1', [`%${marker}%`]);
    expect(turns.rowCount).toBe(0);
    expect(await llm.requests(marker)).toEqual([]);
  });

  it("answers the owner's chat through the Bot API, split under 4,096 characters", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum <b> & '.repeat(20)}`).join(
      '\n\n',
    );
    const marker = await converse('long-reply', [{ content: long }]);
    const before = (await telegram.sent(OWNER_CHAT)).length;
    const actionsBefore = (await telegram.actions(OWNER_CHAT)).length;
    await telegram.deliverText(OWNER_CHAT, `${marker} tell me a long story`);
    const sent = (await telegram.waitForSent(OWNER_CHAT, before + 3)).slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    // "typing…" was shown while the turn ran.
    expect((await telegram.actions(OWNER_CHAT)).slice(actionsBefore).map((a) => a.action)).toContain('typing');
    for (const message of sent) expect(message.parse_mode).toBe('HTML');
    // Telegram's parser (the fake's) accepted every part, so the escaped text reads back as the reply.
    expect(sent.map((message) => message.text).join('')).toContain('lorem ipsum &lt;b&gt; &amp;');
  });
});

describe('assistant conversation', () => {
  it('gives the model the recent turns of the session as chat messages, and nothing of other sessions', async () => {
    const session = `chat-${run}`;
    const first = await converse('turns-first', [{ content: 'Hello Hannah, noted.' }]);
    expect((await ask(`${first} I am Hannah.`, 'hannah', session)).body.reply).toBe('Hello Hannah, noted.');
    const other = await converse('turns-other', [{ content: 'other session' }]);
    await ask(`${other} unrelated`, 'hannah', `elsewhere-${run}`);
    const second = await converse('turns-second', [{ content: 'You are Hannah.' }]);
    expect((await ask(`${second} Who am I?`, 'hannah', session)).body.reply).toBe('You are Hannah.');

    const [request] = await llm.requests(second);
    const messages = (request.body.messages ?? []).map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    }));
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages.slice(1, 3)).toEqual([
      { role: 'user', content: `${first} I am Hannah.` },
      { role: 'assistant', content: 'Hello Hannah, noted.' },
    ]);
    // The turn's own message comes after the assistant's context block (the local time, memories).
    expect(messages[3].content).toMatch(
      /^\[Context from the assistant, not written by the user\]\nThe user's local time is [^\n]+\.\n\[End of context\]\n\n/,
    );
    expect(messages[3].content.endsWith(`\n\n${second} Who am I?`)).toBe(true);
    expect(messages[0].content).not.toContain('I am Hannah');
    // The system message is the same for both turns: the prompt's prefix stays cached.
    const [firstRequest] = await llm.requests(first);
    expect(firstRequest.body.messages?.[0].content).toBe(messages[0].content);
    // A first message of a session has no history.
    const [opening] = await llm.requests(other);
    expect((opening.body.messages ?? []).map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('replays at most the last 20 messages of a long session, dropped in blocks of 10', async () => {
    const session = `long-${run}`;
    const opener = await converse('long-opener', [{ content: 'ok' }]);
    await ask(`${opener} start`, 'ivan', session);
    const ivan = (await userIdOf('api:ivan'))!;
    for (let i = 1; i <= 15; i++)
      await storeTurn(db, ivan, { sessionId: session, userMessage: `question ${i}`, assistantReply: `answer ${i}` });
    const last = await converse('long-last', [{ content: 'done' }]);
    await ask(`${last} and now?`, 'ivan', session);
    const [request] = await llm.requests(last);
    const history = (request.body.messages ?? []).slice(1, -1).map((m) => m.content);
    // 32 messages before it (the opener's two, then 15 turns): the window starts at the 21st (a block of 10).
    expect(history).toEqual(Array.from({ length: 6 }, (_, i) => [`question ${i + 10}`, `answer ${i + 10}`]).flat());
  });
});

describe('assistant chat model', () => {
  it('asks the provider for the model of the stored setting, switched without touching the workflow', async () => {
    const first = await converse('model-a', [{ content: 'from model a' }]);
    await updateInstanceSettings(db, { chatModel: 'e2e-model-a' });
    expect((await ask(`${first} hello`, 'gina')).body.reply).toBe('from model a');
    const second = await converse('model-b', [{ content: 'from model b' }]);
    await updateInstanceSettings(db, { chatModel: 'vendor/e2e-model-b:latest' });
    try {
      expect((await ask(`${second} hello`, 'gina')).body.reply).toBe('from model b');
    } finally {
      await updateInstanceSettings(db, { chatModel: 'gpt-4o-mini' });
    }
    expect((await llm.requests(first)).map((request) => request.body.model)).toEqual(['e2e-model-a']);
    expect((await llm.requests(second)).map((request) => request.body.model)).toEqual(['vendor/e2e-model-b:latest']);
  });

  it('a prompt that cannot fit the model window fails the turn with what to change, and the provider never gets it', async () => {
    const marker = await converse('too-big', [{ content: 'never sent' }]);
    await updateInstanceSettings(db, { chatModel: E2E_SMALL_WINDOW_MODEL });
    let answer: Awaited<ReturnType<typeof ask>>;
    try {
      answer = await ask(`${marker} hello`, 'mira');
    } finally {
      await updateInstanceSettings(db, { chatModel: 'gpt-4o-mini' });
    }
    expect(answer.status).toBe(502);
    expect(await llm.requests(marker)).toEqual([]);
    const turn = await db.query('SELECT status, error FROM assistant.turns WHERE id = $1', [answer.body.turn_id]);
    expect(turn.rows[0].status).toBe('failed');
    expect(turn.rows[0].error).toContain(`the model's window is ${E2E_SMALL_WINDOW} tokens`);
    expect(turn.rows[0].error).toContain('it was not sent');
    const ledger = await db.query('SELECT outcome, window_tokens FROM assistant.model_calls WHERE ref = $1', [
      String(answer.body.turn_id),
    ]);
    expect(ledger.rows).toEqual([{ outcome: 'refused', window_tokens: E2E_SMALL_WINDOW }]);
  });

  it("every model call of a turn goes through the model gateway and is in its ledger, with the turn's user", async () => {
    const marker = await converse('ledger', [
      { tool_calls: [viaRouter('list_tasks', { filter: 'overdue', priority: '' })] },
      { content: 'You have nothing due.' },
    ]);
    const answer = await ask(`${marker} what is due?`, 'lena');
    expect(answer.body).toMatchObject({ reply: 'You have nothing due.' });
    const seen = await llm.requests(marker);
    expect(seen).toHaveLength(2);
    // The provider got its own key (never n8n's) and the bare model id (the caller suffix stays in the gateway).
    for (const request of seen) {
      expect(request.authorization).toBe(`Bearer ${E2E_LLM_API_KEY}`);
      expect(request.body.model).toBe('gpt-4o-mini');
    }
    const ledger = await db.query(
      `SELECT upstream, route, job, user_id, model, outcome, prompt_tokens > 0 AS counted
         FROM assistant.model_calls WHERE ref = $1 ORDER BY id`,
      [answer.body.turn_id],
    );
    const row = {
      upstream: 'llm',
      route: 'chat',
      job: 'agent',
      user_id: await userIdOf('api:lena'),
      model: 'gpt-4o-mini',
      outcome: 'ok',
      counted: true,
    };
    expect(ledger.rows).toEqual([row, row]);
  });
});

describe('assistant data and failures', () => {
  it('stores quotes, $1, emoji and a 100 kB message verbatim', async () => {
    const marker = await converse('verbatim', [{ content: 'Stored "as is": $1 😀' }]);
    const message = `${marker} He said "hi" and 'bye' — costs $1, $$ and \\$2; emoji 😀🎉👩‍👩‍👧; ${'0123456789'.repeat(10_000)}`;
    const answer = await ask(message, 'erin');
    expect(answer.status).toBe(200);
    const erin = await userIdOf('api:erin');
    const turns = await db.query<{ role: string; content: string }>(
      'SELECT role, content FROM assistant.turns WHERE user_id = $1 ORDER BY id',
      [erin],
    );
    expect(turns.rows.find((row) => row.role === 'user')?.content).toBe(message);
    expect(turns.rows.find((row) => row.role === 'assistant')?.content).toBe('Stored "as is": $1 😀');
  });

  it('answers an LLM failure with a structured 502, and apologises in chat', async () => {
    const marker = await converse('llm-down', [{ fail: { status: 500, message: 'upstream exploded' } }]);
    const answer = await ask(`${marker} hello`, 'frank');
    expect(answer.status).toBe(502);
    expect(answer.contentType).toMatch(/application\/json/);
    expect(answer.body).toMatchObject({ error: { code: 'upstream_failed' } });

    const before = (await telegram.sent(OWNER_CHAT)).length;
    await telegram.deliverText(OWNER_CHAT, `${marker} hello again`);
    const sent = await telegram.waitForSent(OWNER_CHAT, before + 1);
    expect(sent.at(-1)?.text).toMatch(/^Sorry/);
  });

  it('keeps secrets out of the workflows n8n exports', async () => {
    const listed = await stack.api<{ data: Array<{ id: string; name: string }> }>('/workflows?limit=250');
    const assistant = listed.data.filter((workflow) => workflow.name.startsWith('Assistant'));
    expect(assistant.length).toBeGreaterThanOrEqual(13);
    for (const { id } of assistant) {
      const exported = await stack.api(`/workflows/${id}`);
      const text = JSON.stringify(exported);
      expect(findSecrets(exported)).toEqual([]);
      for (const secret of [
        API_KEY,
        E2E_LLM_API_KEY,
        E2E_TELEGRAM_BOT_TOKEN,
        new URL(stack.postgresUrl).password,
      ].filter(Boolean)) {
        expect(text).not.toContain(secret);
      }
    }
  });
});
