// The web chat's voice notes on a real server, the assistant's webhook a loopback copy: a recording is refused
// signed out (401), without the session's CSRF token or from another origin (403), too large (413), of a type the
// webhook does not take (415) or empty (400), and nothing reaches the assistant then; otherwise it goes to the
// webhook's voice input as base64 with the console's key (which no answer carries) and the transcript comes back
// beside the reply. The page offers the microphone only when the settings say the assistant transcribes, and stops
// once the assistant says transcription is off.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { readConsoleSettings } from '../../src/server/console/settings';
import { WEB_CHAT_MAX_VOICE_BYTES } from '../../src/server/console/web-chat';
import { startAssistantWebhookFake, type AssistantWebhookFake } from '../fakes/assistant-webhook';
import { uniformBackend } from '../helpers/exact-backend';

const PASSWORD = 'web chat voice test password';
const ASSISTANT_KEY = 'assistant-key-never-in-a-browser';
const AUDIO = Buffer.from('OggS\u0000\u0002 a recorded voice note, OpusHead');
let server: JudgeServer;
let assistant: AssistantWebhookFake;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  assistant = await startAssistantWebhookFake(ASSISTANT_KEY);
  assistant.hear(AUDIO, 'remind me to call Anna');
  server = await startJudgeServer({
    apiKeys: ['web-chat-voice-env-key'],
    backend: uniformBackend(),
    keys: { store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'chat-voice-')), 'keys.json') } },
    console: {
      password: PASSWORD,
      assistant: { url: assistant.url, key: ASSISTANT_KEY, keyHeader: 'X-API-Key', voice: true },
      webChat: { pollEveryMs: 50, eventsWaitMs: 500 },
    },
    log: () => undefined,
  });
  const response = await fetch(`${server.url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ password: PASSWORD }),
  });
  const body = (await response.json()) as { csrf_token: string };
  session = { cookie: response.headers.get('set-cookie')!.split(';')[0], csrf: body.csrf_token };
});
afterAll(async () => {
  await server?.close();
  await assistant?.close();
});

async function record(
  audio: Buffer,
  options: { type?: string; headers?: Record<string, string>; query?: string; signedIn?: boolean } = {},
) {
  const signedIn: Record<string, string> =
    options.signedIn === false ? {} : { cookie: session.cookie, 'x-csrf-token': session.csrf };
  const response = await fetch(`${server.url}/console/api/chat/voice${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      origin: server.url,
      'content-type': options.type ?? 'audio/webm;codecs=opus',
      ...signedIn,
      ...options.headers,
    },
    body: new Uint8Array(audio),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const chatState = async () =>
  (await (
    await fetch(`${server.url}/console/api/chat`, { headers: { cookie: session.cookie, origin: server.url } })
  ).json()) as { on: boolean; voice: boolean };

describe('web chat voice notes', () => {
  it('refuses a recording signed out (401) and without the CSRF token or from elsewhere (403)', async () => {
    const before = assistant.calls.length;
    expect((await record(AUDIO, { signedIn: false })).status).toBe(401);
    expect((await record(AUDIO, { headers: { 'x-csrf-token': 'not-this-one' } })).status).toBe(403);
    expect((await record(AUDIO, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect(assistant.calls.length).toBe(before);
  });

  it('offers the microphone when the settings say the assistant transcribes', async () => {
    expect(await chatState()).toMatchObject({ on: true, voice: true });
  });

  it("forwards the audio to the webhook's voice input with the console key, and answers with the transcript", async () => {
    const reply = await record(AUDIO);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      transcript: 'remind me to call Anna',
      reply: { html: '<p>You said: <strong>remind me to call Anna</strong></p>' },
    });
    expect(reply.text).not.toContain(ASSISTANT_KEY);
    const forwarded = assistant.calls.at(-1)!;
    expect(forwarded.path).toBe('/webhook/agent');
    expect(forwarded.headers['x-api-key']).toBe(ASSISTANT_KEY);
    expect(forwarded.body).toEqual({
      voice: { data: AUDIO.toString('base64'), mime_type: 'audio/webm' },
      user_id: 'owner',
      session_id: 'web-chat',
    });
  });

  it('a recording answers a question with reply_to', async () => {
    const asked = await fetch(`${server.url}/console/api/chat/messages`, {
      method: 'POST',
      headers: {
        origin: server.url,
        'content-type': 'application/json',
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
      },
      body: JSON.stringify({ message: 'please approve this' }),
    });
    const { question } = (await asked.json()) as { question: { id: string } };
    const reply = await record(AUDIO, { type: 'audio/ogg', query: `?reply_to=${question.id}` });
    expect(reply.status).toBe(200);
    expect(assistant.calls.at(-1)!.body).toMatchObject({ reply_to: question.id, voice: { mime_type: 'audio/ogg' } });
  });

  it('refuses too large, a wrong type, nothing recorded and a bad reply_to before anything is forwarded', async () => {
    const before = assistant.calls.length;
    const large = await record(Buffer.alloc(WEB_CHAT_MAX_VOICE_BYTES + 1));
    expect(large.status).toBe(413);
    const wrongType = await record(AUDIO, { type: 'video/mp4' });
    expect([wrongType.status, wrongType.body.detail.message]).toEqual([415, expect.stringContaining('audio/webm')]);
    const empty = await record(Buffer.alloc(0));
    expect([empty.status, empty.body.detail.message]).toEqual([400, expect.stringMatching(/^body: /)]);
    const badReply = await record(AUDIO, { query: '?reply_to=nope' });
    expect([badReply.status, badReply.body.detail.message]).toEqual([400, expect.stringMatching(/^reply_to: /)]);
    expect(assistant.calls.length).toBe(before);
  });

  it('with transcription off: 503 in the assistant’s words, and the page stops offering the microphone', async () => {
    assistant.transcription(false);
    try {
      const refused = await record(AUDIO);
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatchObject({
        message: expect.stringContaining('set up the Assistant Transcription credential'),
      });
      expect(refused.text).toContain('transcription_off');
      expect(await chatState()).toMatchObject({ on: true, voice: false });
    } finally {
      assistant.transcription(true);
    }
  });

  it('settings: JUDGE_CONSOLE_ASSISTANT_VOICE wins over the file, off unless said, bad values named', () => {
    const fail = (field: string, reason: string) => new Error(`${field}: ${reason}`);
    const entry = { url: 'http://127.0.0.1:5678/webhook', key: 'k' };
    expect(readConsoleSettings({ assistant: entry }, {}, fail).assistant).not.toHaveProperty('voice');
    expect(readConsoleSettings({ assistant: { ...entry, voice: true } }, {}, fail).assistant?.voice).toBe(true);
    const off = { JUDGE_CONSOLE_ASSISTANT_VOICE: 'off' };
    expect(readConsoleSettings({ assistant: { ...entry, voice: true } }, off, fail).assistant).not.toHaveProperty(
      'voice',
    );
    const on = { JUDGE_CONSOLE_ASSISTANT_VOICE: 'on' };
    expect(readConsoleSettings({ assistant: entry }, on, fail).assistant?.voice).toBe(true);
    expect(() => readConsoleSettings({ assistant: entry }, { JUDGE_CONSOLE_ASSISTANT_VOICE: 'yes' }, fail)).toThrow(
      /^JUDGE_CONSOLE_ASSISTANT_VOICE: /,
    );
    expect(() => readConsoleSettings({ assistant: { ...entry, voice: 'on' } }, {}, fail)).toThrow(
      /^console\.assistant\.voice: /,
    );
  });
});
