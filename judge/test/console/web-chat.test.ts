// The web chat's routes on a real server, the assistant's webhook a loopback copy: refused signed out (401 on every
// route), a message forwarded as the operator with the console's key (which no answer carries), replies as safe
// HTML, an approval's buttons and a code's field, a late reply and a reminder arriving on the long poll, the page's
// receipt recorded in the assistant's outbox (and a page opened later shows every message never shown), bad input
// named, an off or unreachable assistant said so; and the settings that switch it on.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { readConsoleSettings } from '../../src/server/console/settings';
import { WebChat } from '../../src/server/console/web-chat';
import { startAssistantWebhookFake, type AssistantWebhookFake } from '../fakes/assistant-webhook';
import { uniformBackend } from '../helpers/exact-backend';

const PASSWORD = 'web chat test password';
const ASSISTANT_KEY = 'assistant-key-never-in-a-browser';
let server: JudgeServer;
let assistant: AssistantWebhookFake;

beforeAll(async () => {
  assistant = await startAssistantWebhookFake(ASSISTANT_KEY);
  server = await startJudgeServer({
    apiKeys: ['web-chat-env-key'],
    backend: uniformBackend(),
    keys: { store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'chat-')), 'keys.json') } },
    console: {
      password: PASSWORD,
      assistant: { url: assistant.url, key: ASSISTANT_KEY, keyHeader: 'X-API-Key' },
      webChat: { pollEveryMs: 50, eventsWaitMs: 1500 },
    },
    log: () => undefined,
  });
});
afterAll(async () => {
  await server?.close();
  await assistant?.close();
});

interface Reply {
  status: number;
  text: string;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(route: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${server.url}/console/api/${route}`, {
    method: init.method ?? 'GET',
    headers: {
      origin: server.url,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) } satisfies Reply;
}

let session: { cookie: string; csrf: string } | undefined;
async function signedIn(): Promise<Record<string, string>> {
  if (!session) {
    const response = await fetch(`${server.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ password: PASSWORD }),
    });
    const body = (await response.json()) as { csrf_token: string };
    session = { cookie: response.headers.get('set-cookie')!.split(';')[0], csrf: body.csrf_token };
  }
  return { cookie: session.cookie, 'x-csrf-token': session.csrf };
}

const say = async (message: string, replyTo?: string) =>
  call('chat/messages', {
    method: 'POST',
    headers: await signedIn(),
    body: { message, ...(replyTo ? { reply_to: replyTo } : {}) },
  });

describe('the web chat signed out', () => {
  it('refuses every route with 401, and nothing reaches the assistant', async () => {
    const before = assistant.calls.length;
    const routes: Array<[string, string]> = [
      ['chat', 'GET'],
      ['chat/events', 'GET'],
      ['chat/events?after=0', 'GET'],
      ['chat/messages', 'POST'],
      ['chat/receipts', 'POST'],
    ];
    for (const [route, method] of routes) {
      const reply = await call(route, { method, body: method === 'POST' ? { message: 'hi' } : undefined });
      expect(reply.status, route).toBe(401);
      expect(reply.body.detail.message).toMatch(/^Sign in to the console/);
    }
    const forged = await call('chat/messages', {
      method: 'POST',
      headers: { cookie: 'judge_console=forged.value', 'x-csrf-token': 'x' },
      body: { message: 'hi' },
    });
    expect(forged.status).toBe(401);
    expect(assistant.calls.length).toBe(before);
  });
});

describe('the web chat signed in', () => {
  it('forwards a message as the operator with the console key, and answers the reply as safe HTML', async () => {
    const reply = await say('hello <script>alert(1)</script>');
    expect(reply.status).toBe(200);
    expect(reply.body.reply.html).toBe('<p>You said: <strong>hello &lt;script&gt;alert(1)&lt;/script&gt;</strong></p>');
    expect(reply.text).not.toContain(ASSISTANT_KEY);
    const forwarded = assistant.calls.at(-1)!;
    expect(forwarded.path).toBe('/webhook/agent');
    expect(forwarded.headers['x-api-key']).toBe(ASSISTANT_KEY);
    expect(forwarded.body).toEqual({
      message: 'hello <script>alert(1)</script>',
      user_id: 'owner',
      session_id: 'web-chat',
    });
  });

  it('a message needs the CSRF token of the session and the page as its origin', async () => {
    const headers = await signedIn();
    const noToken = await call('chat/messages', {
      method: 'POST',
      headers: { cookie: headers.cookie },
      body: { message: 'x' },
    });
    expect(noToken.status).toBe(403);
    const elsewhere = await call('chat/messages', {
      method: 'POST',
      headers: { ...headers, origin: 'https://evil.example' },
      body: { message: 'x' },
    });
    expect(elsewhere.status).toBe(403);
  });

  it('an approval comes with Yes and No buttons; the answer goes back as reply_to', async () => {
    const asked = await say('please approve something');
    expect(asked.body.question).toMatchObject({
      kind: 'approval',
      buttons: [
        { label: 'Yes', answer: 'yes' },
        { label: 'No', answer: 'no' },
      ],
    });
    expect(asked.body.question.html).toContain('<strong>&quot;tax&quot;</strong>');
    const answered = await say('yes', asked.body.question.id);
    expect(answered.body.reply.html).toBe('<p>Thanks, I got &quot;yes&quot;.</p>');
    expect(assistant.calls.at(-1)!.body).toMatchObject({ reply_to: asked.body.question.id, user_id: 'owner' });
  });

  it('a one-time code question comes with a code field', async () => {
    const asked = await say('sign in, it needs a code');
    expect(asked.body.question).toMatchObject({ kind: 'one_time_code', field: { kind: 'code' } });
    expect(asked.body.question.field.replyTo).toBe(asked.body.question.id);
    expect((await say('492113', asked.body.question.id)).body.reply.html).toBe('<p>Thanks, I got the code.</p>');
  });

  it('bad input is refused naming the field, before anything is forwarded', async () => {
    const before = assistant.calls.length;
    expect((await say('   ')).body.detail.message).toMatch(/^message: /);
    const unknown = await call('chat/messages', {
      method: 'POST',
      headers: await signedIn(),
      body: { message: 'x', user_id: 'root' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail.message).toMatch(/^user_id: is not a known field/);
    expect((await say('x', 'not-a-question-id')).body.detail.message).toMatch(/^reply_to: /);
    expect(assistant.calls.length).toBe(before);
  });

  it('the long poll hands over a reminder queued while it waits, and a late reply', async () => {
    const start = await call('chat/events', { headers: await signedIn() });
    expect(start.status).toBe(200);
    const cursor = start.body.cursor as number;
    const waiting = call(`chat/events?after=${cursor}`, { headers: await signedIn() });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assistant.queue('Reminder: call the **bank** <now>');
    const arrived = await waiting;
    expect(arrived.body.messages).toEqual([
      expect.objectContaining({
        kind: 'reminder',
        html: '<p>Reminder: call the <strong>bank</strong> &lt;now&gt;</p>',
      }),
    ]);
    expect(arrived.body.cursor).toBeGreaterThan(cursor);

    const slow = await say('a slow question');
    expect(slow.body).toMatchObject({ pending: true });
    const late = await call(`chat/events?after=${arrived.body.cursor}`, { headers: await signedIn() });
    expect(late.body.messages).toEqual([expect.objectContaining({ kind: 'reply' })]);
    const quiet = await call(`chat/events?after=${late.body.cursor}`, { headers: await signedIn() });
    expect(quiet.body.messages).toEqual([]);
    expect(quiet.body.cursor).toBe(late.body.cursor);
  });
});

describe("the web chat's receipts", () => {
  const receipt = async (shown: unknown, headers?: Record<string, string>) =>
    call('chat/receipts', { method: 'POST', headers: headers ?? (await signedIn()), body: { shown } });

  it('what the page showed is delivered on web in the outbox, through the webhook with the console key', async () => {
    assistant.queue('Reminder: water the plants');
    const start = await call('chat/events', { headers: await signedIn() });
    const row = assistant.outbox().find((message) => message.text === 'Reminder: water the plants')!;
    expect(start.body.messages.map((message: { id: number }) => message.id)).toContain(row.id);
    expect(row).toMatchObject({ channel: 'pull', status: 'stored' });

    const recorded = await receipt([row.id, 999_999]);
    expect(recorded.status).toBe(200);
    expect(recorded.body.receipts).toEqual([
      { id: row.id, channel: 'web', status: 'delivered', delivered_at: expect.any(String) },
    ]);
    expect(recorded.text).not.toContain(ASSISTANT_KEY);
    const forwarded = assistant.calls.at(-1)!;
    expect(forwarded).toMatchObject({ method: 'POST', path: '/webhook/agent/outbox/receipts' });
    expect(forwarded.headers['x-api-key']).toBe(ASSISTANT_KEY);
    expect(forwarded.body).toEqual({ user_id: 'owner', channel: 'web', shown: [row.id, 999_999] });
    expect(assistant.outbox().find((message) => message.id === row.id)).toMatchObject({ status: 'delivered' });
  });

  it('a page opened later shows the last messages and, before them, every one never shown', async () => {
    for (let i = 1; i <= 30; i++) assistant.queue(`Notice ${i}`, 'notice');
    const all = assistant.outbox();
    const shownBefore = all.filter((message) => /^Notice (2|3|4)$/.test(message.text)).map((message) => message.id);
    await receipt(shownBefore);
    const opened = await call('chat/events', { headers: await signedIn() });
    const ids = opened.body.messages.map((message: { id: number }) => message.id);
    const lastTwenty = all.slice(-20).map((message) => message.id);
    const neverShown = all.filter((m) => m.status === 'stored' && !shownBefore.includes(m.id)).map((m) => m.id);
    expect(ids).toEqual([...neverShown.filter((id) => !lastTwenty.includes(id)), ...lastTwenty]);
    const texts = opened.body.messages.map((message: { html: string }) => message.html);
    expect(texts).toContain('<p>Notice 1</p>');
    expect(texts).not.toContain('<p>Notice 2</p>');
    expect(opened.body.cursor).toBe(all.at(-1)!.id);
  });

  it('refuses bad receipts naming the field, signed out or without the CSRF token, before forwarding', async () => {
    const before = assistant.calls.length;
    for (const [shown, field] of [
      [[], 'shown'],
      [['12'], 'shown'],
      [[0], 'shown'],
      ['1', 'shown'],
    ] as const) {
      const refused = await receipt(shown);
      expect(refused.status).toBe(400);
      expect(refused.body.detail.message).toMatch(new RegExp(`^${field}: `));
    }
    const extra = await call('chat/receipts', {
      method: 'POST',
      headers: await signedIn(),
      body: { shown: [1], channel: 'telegram' },
    });
    expect(extra.body.detail.message).toMatch(/^channel: is not a known field/);
    expect((await receipt([1], {})).status).toBe(401);
    expect((await receipt([1], { cookie: (await signedIn()).cookie })).status).toBe(403);
    expect(assistant.calls.length).toBe(before);
  });

  it("a refused key is the assistant's answer said as a 502, never the key", async () => {
    const chat = new WebChat({ entry: { url: assistant.url, key: 'not-the-key', keyHeader: 'X-API-Key' } });
    await expect(chat.receipt({ shown: [1] })).rejects.toMatchObject({
      status: 502,
      message: "The assistant's receipts answered HTTP 403: Invalid API key",
    });
  });
});

describe('the web chat off or unreachable', () => {
  it('without an assistant entry: 503 naming the settings; unreachable: 502', async () => {
    await expect(new WebChat({}).send({ message: 'hi' })).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('JUDGE_CONSOLE_ASSISTANT_URL'),
    });
    const closed = new WebChat({ entry: { url: 'http://127.0.0.1:9/webhook', key: 'k', keyHeader: 'X-API-Key' } });
    await expect(closed.send({ message: 'hi' })).rejects.toMatchObject({ status: 502 });
  });

  it('settings: env wins over the file, bad values name their field, the key is never optional', () => {
    const fail = (field: string, reason: string) => new Error(`${field}: ${reason}`);
    const file = { assistant: { url: 'http://127.0.0.1:5678/webhook/', key: 'file-key' } };
    expect(readConsoleSettings(file, {}, fail).assistant).toEqual({
      url: 'http://127.0.0.1:5678/webhook',
      key: 'file-key',
      keyHeader: 'X-API-Key',
    });
    const env = { JUDGE_CONSOLE_ASSISTANT_URL: 'http://n8n:5678/webhook', JUDGE_CONSOLE_ASSISTANT_KEY: 'env-key' };
    expect(readConsoleSettings(file, env, fail).assistant).toMatchObject({
      url: 'http://n8n:5678/webhook',
      key: 'env-key',
    });
    expect(readConsoleSettings({}, {}, fail).assistant).toBeUndefined();
    expect(() => readConsoleSettings({ assistant: { url: 'ftp://x', key: 'k' } }, {}, fail)).toThrow(
      /^console\.assistant\.url: /,
    );
    expect(() => readConsoleSettings({ assistant: { url: 'http://x' } }, {}, fail)).toThrow(
      /^console\.assistant\.key: /,
    );
    expect(() => readConsoleSettings({ assistant: { url: 'http://x', key: 'k', token: 1 } }, {}, fail)).toThrow(
      /^console\.assistant\.token: /,
    );
  });
});
