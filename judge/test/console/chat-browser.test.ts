// The web chat in real headless Chromium against a loopback copy of the assistant's webhook: signed out, the page
// asks for the console password; signed in, a message and its reply (hostile Markdown shown as text, a link with
// rel=noopener), an approval answered with its button, a code typed in its field, a reminder arriving while the
// page is open and its receipt (delivered on web) in the assistant's outbox, not shown again as news when the page
// is reloaded; a voice note recorded with the microphone button (Chromium's fake microphone playing espeak-ng's
// speech) shown as its transcript and answered; signing out stops it. WEB_CHAT_SCREENSHOT=1 writes
// docs/images/web-chat.png.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { CHROMIUM, hasChromium, launchChromium } from '../../tools/playground/browser';
import { startAssistantWebhookFake, type AssistantWebhookFake } from '../fakes/assistant-webhook';
import { uniformBackend } from '../helpers/exact-backend';
import { repoRoot } from '../helpers/repo';
import { speakToWav } from '../helpers/speech';

const PASSWORD = 'web chat browser password';
const available = hasChromium();
if (!available) console.warn(`\n!!! ${CHROMIUM} is missing: the web chat's browser test is SKIPPED. !!!\n`);

let browser: Browser;
let server: JudgeServer;
let assistant: AssistantWebhookFake;
let page: Page;

beforeAll(async () => {
  if (!available) return;
  assistant = await startAssistantWebhookFake('chat-browser-key');
  server = await startJudgeServer({
    apiKeys: ['chat-browser-env-key'],
    backend: uniformBackend(),
    keys: { store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'chat-')), 'keys.json') } },
    console: {
      password: PASSWORD,
      assistant: { url: assistant.url, key: 'chat-browser-key', keyHeader: 'X-API-Key', voice: true },
      webChat: { pollEveryMs: 100, eventsWaitMs: 2000 },
    },
    log: () => undefined,
  });
  const wav = path.join(mkdtempSync(path.join(tmpdir(), 'chat-voice-')), 'spoken.wav');
  speakToWav('put oat milk on the list', wav);
  browser = await launchChromium([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
  ]);
  page = await browser.newPage({ viewport: { width: 900, height: 820 } });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await assistant?.close();
});

const bubbles = () => page.locator('#messages li .body').allTextContents();

async function say(text: string) {
  await page.fill('#chat-input', text);
  await page.click('#send');
}

describe.skipIf(!available)('the web chat in Chromium', () => {
  it('asks a signed-out visitor for the console password, refusing a wrong one', async () => {
    await page.goto(`${server.url}/console/chat`);
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.isVisible('#chat')).toBe(false);
    await page.fill('#password', 'not the password');
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#notice')).toBe('That is not the console password.');
  });

  it('signs in; a message and its reply, hostile text shown as text', async () => {
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForSelector('#chat:not([hidden])');
    await say('hi <img src=x onerror="document.title=\'pwned\'"> and [docs](https://example.com)');
    await expect.poll(bubbles).toHaveLength(2);
    const reply = page.locator('#messages li.assistant .body').last();
    expect(await reply.textContent()).toBe('You said: hi <img src=x onerror="document.title=\'pwned\'"> and docs');
    expect(await page.locator('#messages img').count()).toBe(0);
    expect(await reply.locator('a').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.title()).not.toBe('pwned');
  });

  it('an approval answered with its button; a code typed in its field', async () => {
    await say('please approve the expert');
    const yes = page.locator('#messages li.assistant button', { hasText: 'Yes' }).last();
    await yes.waitFor();
    await yes.click();
    await expect.poll(async () => (await bubbles()).at(-1)).toBe('Thanks, I got "yes".');
    expect(await yes.isDisabled()).toBe(true);

    await say('sign in to the bank, it wants a code');
    const field = page.locator('#messages input[autocomplete="one-time-code"]').last();
    await field.waitFor();
    await field.fill('492113');
    await field.press('Enter');
    await expect.poll(async () => (await bubbles()).at(-1)).toBe('Thanks, I got the code.');
    expect(await bubbles()).not.toContain('492113');
    expect(await field.inputValue()).toBe('');
  });

  it('a reminder arrives while the page is open', async () => {
    assistant.queue('Reminder: call the **bank** before 5 pm');
    const reminder = page.locator('#messages li.proactive').last();
    await expect
      .poll(() => reminder.textContent(), { timeout: 10_000 })
      .toBe('ReminderReminder: call the bank before 5 pm');
    expect(await reminder.locator('strong').textContent()).toBe('bank');
    // The page said it showed it: the outbox has it delivered on the web chat.
    const row = () => assistant.outbox().find((message) => message.text.startsWith('Reminder: call the **bank**'));
    await expect.poll(() => row()?.status, { timeout: 10_000 }).toBe('delivered');
    expect(row()).toMatchObject({ channel: 'web', delivered_at: expect.any(String) });
    if (process.env.WEB_CHAT_SCREENSHOT === '1') {
      await page.screenshot({ path: path.join(repoRoot, 'docs', 'images', 'web-chat.png'), fullPage: true });
    }
  });

  it('opened again, the page shows what it showed as earlier, and what came meanwhile as news', async () => {
    // Queued while no page is open (an open one would show it at once).
    await page.goto('about:blank');
    assistant.queue('Notice: the backup check failed', 'notice');
    await page.goto(`${server.url}/console/chat`);
    await page.waitForSelector('#chat:not([hidden])');
    const reminder = page.locator('#messages li.proactive', { hasText: 'call the bank' });
    const notice = page.locator('#messages li.proactive', { hasText: 'the backup check failed' });
    await notice.waitFor();
    expect(await reminder.getAttribute('class')).toBe('message proactive earlier');
    expect(await reminder.locator('.label').textContent()).toBe('Reminder (earlier)');
    expect(await notice.getAttribute('class')).toBe('message proactive');
    const row = () => assistant.outbox().find((message) => message.text === 'Notice: the backup check failed');
    await expect.poll(() => row()?.channel, { timeout: 10_000 }).toBe('web');
  });

  it('the microphone pressed and stopped: the recording sent, its transcript shown as said, then the answer', async () => {
    // The webhook's copy cannot hear either: it is told what this recording says once the page sends it.
    const recordings: Buffer[] = [];
    await page.route('**/console/api/chat/voice*', async (route) => {
      const audio = route.request().postDataBuffer() ?? Buffer.alloc(0);
      recordings.push(audio);
      assistant.hear(audio, 'put oat milk on the list');
      await route.continue();
    });
    await page.click('#record');
    await expect.poll(() => page.textContent('#record')).toBe('■ Stop');
    await page.waitForTimeout(1500);
    await page.click('#record');
    const said = page.locator('#messages li.user', { hasText: 'put oat milk on the list' });
    await said.waitFor();
    await page.unroute('**/console/api/chat/voice*');
    expect(await said.locator('.label').textContent()).toBe('You (voice)');
    await expect.poll(async () => (await bubbles()).at(-1)).toBe('You said: put oat milk on the list');
    expect(recordings).toHaveLength(1);
    // WebM (EBML) with Opus, as Chromium's MediaRecorder records, carrying the speech: 1.5 s of it is ~24 kB, while
    // 2.5 s of silence is under 1 kB.
    expect(recordings[0].subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
    expect(recordings[0].length).toBeGreaterThan(8000);
    const forwarded = assistant.calls.find((call) => (call.body as { voice?: unknown } | null)?.voice);
    expect(forwarded?.body).toMatchObject({ voice: { mime_type: 'audio/webm' }, user_id: 'owner' });
    expect(await page.textContent('#record')).toBe('🎤 Voice');
  });

  it('signing out shows the sign-in again, and the session is gone', async () => {
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in:not([hidden])');
    const status = await page.evaluate(async () => (await fetch('/console/api/chat/events')).status);
    expect(status).toBe(401);
  });
});
