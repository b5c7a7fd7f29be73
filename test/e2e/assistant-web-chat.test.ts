// The web chat end to end in headless Chromium: a judge server started here with the operator's console, whose web
// chat reaches the real n8n's assistant webhook with the assistant's key (the console's config, never the page's),
// on the stack's Postgres, scripted model, browser service and login site. Signed out, every chat route is refused;
// signed in, a message and its reply, a reminder arriving while the page is open (queued in the outbox as the tick
// queues one, pulled through the outbox webhook), an approval answered with its button, the one-time code a site
// asks for typed into the question's field, and a voice note sent through the console answered by its transcript
// (the webhook's voice input, transcribed through the model gateway's transcription route).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_API_USER_ID, queueMessage, resolveIdentity, runMigrations } from 'assistant-core';
import { startJudgeServer, type JudgeServer } from '../../judge/src/server';
import { uniformBackend } from '../../judge/test/helpers/exact-backend';
import { CHROMIUM, hasChromium, launchChromium } from '../../judge/tools/playground/browser';
import { totp } from '../../assistant/test/browser/login-site';
import { E2E_SITE_PASSWORD, E2E_SITE_TOTP_SECRET, E2E_SITE_USERNAME } from '../fakes/assistant-e2e-fakes';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { speak } from '../fakes/speech';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials } from './setup/assistant';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { callTool } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const PASSWORD = 'web chat e2e password';
const LOGIN = 'bank';
const REPLY_MS = 120_000;

if (!hasChromium()) throw new Error(`${CHROMIUM} is missing: the web chat e2e test needs Chromium`);

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;
let judge: JudgeServer;
let browser: Browser;
let page: Page;

const fill = (ref: string, given: { login: string; part: string }): ScriptStep =>
  callTool('browser_fill', { ref, value: '', ...given });

async function say(text: string) {
  await page.fill('#chat-input', text);
  await page.click('#send');
}

const lastBubble = () => page.locator('#messages li .body').last();

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  await configureAssistantCredentials(stack);
  const site = stack.fakeUrls.E2E_LOGIN_SITE_URL;
  await stack.api('/credentials/asstSiteLogins01', {
    method: 'PATCH',
    body: {
      data: {
        logins: JSON.stringify([
          { name: LOGIN, site, username: E2E_SITE_USERNAME, password: E2E_SITE_PASSWORD, users: ['owner'] },
        ]),
      },
    },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  judge = await startJudgeServer({
    apiKeys: ['web-chat-e2e-judge-key'],
    backend: uniformBackend(),
    keys: { store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'web-chat-')), 'keys.json') } },
    console: {
      password: PASSWORD,
      assistant: { url: stack.webhookUrl, key: E2E_ASSISTANT_API_KEY, keyHeader: 'X-API-Key', voice: true },
      webChat: { pollEveryMs: 250, eventsWaitMs: 5000 },
    },
    log: () => undefined,
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 900, height: 900 } });
});

// On: the model gateway's transcription route (the fake behind it); off: no base URL (as assistant-voice.test.ts).
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

afterAll(async () => {
  await setTranscription(false).catch(() => undefined);
  await browser?.close();
  await judge?.close();
  await db?.end();
});

describe('the web chat on the real assistant', () => {
  it('refuses a signed-out session on every chat route', async () => {
    for (const [route, method] of [
      ['chat', 'GET'],
      ['chat/events', 'GET'],
      ['chat/messages', 'POST'],
    ]) {
      const response = await fetch(`${judge.url}/console/api/${route}`, {
        method,
        headers: { 'content-type': 'application/json', origin: judge.url },
        body: method === 'POST' ? JSON.stringify({ message: 'hi' }) : undefined,
      });
      expect(response.status, route).toBe(401);
    }
    await page.goto(`${judge.url}/console/chat`);
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.isVisible('#chat')).toBe(false);
  });

  it('signs in; a message and its reply', async () => {
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForSelector('#chat:not([hidden])');
    const marker = `[web-hello-${run}]`;
    await llm.addScript(marker, [{ content: 'Hello from **the agent** <b>not bold</b>' }]);
    await say(`Hi there ${marker}`);
    await expect
      .poll(() => lastBubble().textContent(), { timeout: REPLY_MS })
      .toBe('Hello from the agent <b>not bold</b>');
    expect(await lastBubble().locator('strong').textContent()).toBe('the agent');
    const sent = (await llm.requests(marker)).at(-1)!;
    expect(JSON.stringify(sent.body.messages)).toContain(`Hi there ${marker}`);
  });

  it('a voice note sent through the console is answered by its transcript, shown as what the operator said', async () => {
    await setTranscription(true);
    const marker = `[web-voice-${run}]`;
    await llm.addScript(marker, [{ content: 'Heard you, **operator**.' }]);
    const audio = speak('put oat milk on the list');
    await llm.addTranscript(audio, `put oat milk on the list ${marker}`);
    // The page's own session and origin: what its microphone button sends once MediaRecorder stops.
    const answer = await page.evaluate(async (base64) => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const response = await fetch('/console/api/chat/voice', {
        method: 'POST',
        headers: { 'x-csrf-token': session.csrf_token, 'content-type': 'audio/ogg' },
        body: bytes,
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    }, audio.toString('base64'));
    expect(answer.status).toBe(200);
    expect(answer.body.transcript).toBe(`put oat milk on the list ${marker}`);
    expect(answer.body.reply.html).toBe('<p>Heard you, <strong>operator</strong>.</p>');
    expect(JSON.stringify(answer.body)).not.toContain(E2E_ASSISTANT_API_KEY);
    const sent = (await llm.requests(marker)).at(-1)!;
    expect(JSON.stringify(sent.body.messages)).toContain(`put oat milk on the list ${marker}`);
    const owner = await resolveIdentity(db, 'api', OPERATOR_API_USER_ID);
    const stored = await db.query(`SELECT content FROM assistant.turns WHERE user_id = $1 AND content = $2`, [
      owner.userId,
      `put oat milk on the list ${marker}`,
    ]);
    expect(stored.rows).toHaveLength(1);
    // The page offers the microphone, since the console says voice is on.
    expect(await page.isVisible('#record')).toBe(true);
  });

  it('a reminder arrives while the page is open', async () => {
    const owner = await resolveIdentity(db, 'api', OPERATOR_API_USER_ID);
    const text = `Reminder ${run}: call the **bank** before 5 pm`;
    await queueMessage(db, owner.userId, { kind: 'reminder', text, dedupeKey: `web-chat-e2e:${run}` });
    const reminder = page.locator('#messages li.proactive .body', { hasText: `Reminder ${run}` });
    await expect.poll(() => reminder.count(), { timeout: 30_000 }).toBe(1);
    expect(await reminder.locator('strong').textContent()).toBe('bank');
  });

  it('an approval answered with its button', async () => {
    const marker = `[web-approve-${run}]`;
    await llm.addScript(marker, [
      callTool('install_expert', { expert_id: 'gift-ideas' }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    await say(`Install gift ideas ${marker}`);
    const asked = page.locator('#messages li.assistant', { has: page.locator('button', { hasText: 'No' }) }).last();
    const no = asked.locator('button', { hasText: 'No' });
    await no.waitFor({ timeout: REPLY_MS });
    expect(await asked.locator('.body').textContent()).toMatch(/^Install the expert "Gift Ideas" \(gift-ideas\)/);
    await no.click();
    await expect
      .poll(() => lastBubble().textContent(), { timeout: REPLY_MS })
      .toContain('Not installed: the operator did not approve');
  });

  it('the one-time code a site asks for is typed into the question field', async () => {
    const marker = `[web-code-${run}]`;
    const site = stack.fakeUrls.E2E_LOGIN_SITE_URL;
    await llm.addScript(marker, [
      callTool('browser_open', { url: `${site}/login` }),
      fill('1', { login: LOGIN, part: 'username' }),
      fill('2', { login: LOGIN, part: 'password' }),
      callTool('browser_click', { ref: '3' }),
      callTool('browser_click', { ref: '2' }),
      { content: 'Signed in. {{last_tool_result}}' },
    ]);
    await say(`Sign me in to the bank ${marker}`);
    const field = page.locator('#messages input[autocomplete="one-time-code"]').last();
    await field.waitFor({ timeout: REPLY_MS });
    await field.fill(totp(E2E_SITE_TOTP_SECRET));
    await field.press('Enter');
    await expect
      .poll(() => lastBubble().textContent(), { timeout: REPLY_MS })
      .toContain(`Signed in as ${E2E_SITE_USERNAME}`);
    expect(await page.locator('#messages').textContent()).not.toContain(totp(E2E_SITE_TOTP_SECRET));
  });

  it('signed out, the page asks for the password again and the chat is refused', async () => {
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.evaluate(async () => (await fetch('/console/api/chat/events')).status)).toBe(401);
  });
});
