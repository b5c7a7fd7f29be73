// The web chat end to end in headless Chromium: a judge server started here with the operator's console, whose web
// chat reaches the real n8n's assistant webhook with the assistant's key (the console's config, never the page's),
// on the stack's Postgres, scripted model, browser service and login site. Signed out, every chat route is refused;
// signed in, a message and its reply, a voice note recorded by pressing the microphone (Chromium's fake microphone
// playing espeak-ng's speech) answered by its transcript (the webhook's voice input, transcribed through the model
// gateway's transcription route), a reminder arriving while the page is open (queued in the outbox as the tick
// queues one, pulled through the outbox webhook) and its delivery receipt (delivered on web, through the receipts
// webhook), an approval answered with its button, and the one-time code a site asks for typed into the question's
// field.
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
import { isWebm } from '../fakes/openai-chat';
import { speakToWav } from '../fakes/speech';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials } from './setup/assistant';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { callTool } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const PASSWORD = 'web chat e2e password';
const LOGIN = 'bank';
const REPLY_MS = 120_000;
const SPOKEN = 'put oat milk on the list';

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
  // The microphone: Chromium's fake capture device plays espeak-ng saying SPOKEN (looped), no permission prompt.
  const wav = path.join(mkdtempSync(path.join(tmpdir(), 'web-chat-voice-')), 'spoken.wav');
  speakToWav(SPOKEN, wav);
  browser = await launchChromium([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
  ]);
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

  it('the microphone pressed, then stopped: the recording is answered by its transcript, shown as said', async () => {
    await setTranscription(true);
    const marker = `[web-voice-${run}]`;
    await llm.addScript(marker, [{ content: 'Heard you, **operator**.' }]);
    // The page's recording, as it leaves for the console: the transcription fake cannot hear, so the test tells it
    // what this recording of SPOKEN says (by the recording's bytes), then lets it go on unchanged.
    const recordings: Buffer[] = [];
    await page.route('**/console/api/chat/voice*', async (route) => {
      const audio = route.request().postDataBuffer() ?? Buffer.alloc(0);
      recordings.push(audio);
      if (isWebm(audio)) await llm.addTranscript(audio, `${SPOKEN} ${marker}`);
      await route.continue();
    });
    const answered = page.waitForResponse((response) => response.url().includes('/console/api/chat/voice'), {
      timeout: REPLY_MS,
    });
    await page.click('#record');
    await expect.poll(() => page.getAttribute('#record', 'aria-pressed')).toBe('true');
    await page.waitForTimeout(2500);
    await page.click('#record');
    const response = await answered;
    await page.unroute('**/console/api/chat/voice*');

    expect(recordings).toHaveLength(1);
    expect(isWebm(recordings[0])).toBe(true);
    // The speech, not silence: 2.5 s of it is ~40 kB of Opus, 2.5 s of silence under 1 kB.
    expect(recordings[0].length).toBeGreaterThan(10_000);
    expect(response.request().headers()['content-type']).toBe('audio/webm');
    const answer = (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(response.status()).toBe(200);
    expect(answer.transcript).toBe(`${SPOKEN} ${marker}`);
    expect(answer.reply.html).toBe('<p>Heard you, <strong>operator</strong>.</p>');
    expect(JSON.stringify(answer)).not.toContain(E2E_ASSISTANT_API_KEY);
    await expect.poll(() => page.getAttribute('#record', 'aria-pressed')).toBe('false');

    const said = page.locator('#messages li.user', { hasText: marker });
    await said.waitFor();
    expect(await said.locator('.label').textContent()).toBe('You (voice)');
    expect(await said.locator('.body').textContent()).toBe(`${SPOKEN} ${marker}`);
    await expect.poll(() => lastBubble().textContent(), { timeout: REPLY_MS }).toBe('Heard you, operator.');
    const sent = (await llm.requests(marker)).at(-1)!;
    expect(JSON.stringify(sent.body.messages)).toContain(`${SPOKEN} ${marker}`);
    const owner = await resolveIdentity(db, 'api', OPERATOR_API_USER_ID);
    const stored = await db.query(`SELECT content FROM assistant.turns WHERE user_id = $1 AND content = $2`, [
      owner.userId,
      `${SPOKEN} ${marker}`,
    ]);
    expect(stored.rows).toHaveLength(1);
  });

  it('a reminder arrives while the page is open', async () => {
    const owner = await resolveIdentity(db, 'api', OPERATOR_API_USER_ID);
    const text = `Reminder ${run}: call the **bank** before 5 pm`;
    const { message } = await queueMessage(db, owner.userId, {
      kind: 'reminder',
      text,
      dedupeKey: `web-chat-e2e:${run}`,
    });
    expect(message).toMatchObject({ channel: 'pull', status: 'stored' });
    const reminder = page.locator('#messages li.proactive .body', { hasText: `Reminder ${run}` });
    await expect.poll(() => reminder.count(), { timeout: 30_000 }).toBe(1);
    expect(await reminder.locator('strong').textContent()).toBe('bank');
    // The page said it showed it: the receipt, where a client that pulls sees the others' (GET /webhook/agent/outbox).
    const listed = async () => {
      const response = await fetch(`${stack.webhookUrl}/agent/outbox?user_id=owner&after=${message.id - 1}&limit=1`, {
        headers: { 'X-API-Key': E2E_ASSISTANT_API_KEY },
      });
      return ((await response.json()) as { messages: Array<Record<string, unknown>> }).messages[0];
    };
    await expect.poll(async () => (await listed())?.status, { timeout: 30_000 }).toBe('delivered');
    expect(await listed()).toMatchObject({ id: message.id, channel: 'web', attempts: 1, last_error: null });
    expect(await listed()).toMatchObject({ delivered_at: expect.any(String) });
  });

  it('the receipts webhook refuses a wrong key and names a bad field', async () => {
    const post = (body: unknown, key = E2E_ASSISTANT_API_KEY) =>
      fetch(`${stack.webhookUrl}/agent/outbox/receipts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify(body),
      });
    expect((await post({ user_id: 'owner', channel: 'web', shown: [1] }, 'not-the-key')).status).toBe(403);
    const bad = await post({ user_id: 'owner', channel: 'telegram', shown: [1] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_request', field: 'channel' } });
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
