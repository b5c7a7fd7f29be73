// A loopback copy of the assistant's webhook as the web chat uses it (workflows/assistant-webhook.json and
// assistant-outbox.json; answers as assistant/src/channel/turn-answer.ts and the List Outbox operation make them):
//   POST /webhook/agent         {message, user_id, session_id?, reply_to?} with the API key header (missing: 401,
//                               wrong: 403, both {error: {code, message}}): {reply, user_id, session_id, turn_id};
//                               a message containing "approve" or "code" gets needs_input {id, kind, question,
//                               expires_at}; an answer (reply_to of an open question) gets the receipt reply;
//                               "slow" gets 504 reply_pending with the turn id (the reply is queued in the outbox);
//                               {voice: {data, mime_type}} instead of message is the audio's transcript (what
//                               hear() registered; none: 422 no_words) answered as a message with `transcript`
//                               beside it; transcription off: 503 transcription_off in Telegram's sentence
//   GET  /webhook/agent/outbox  ?user_id&after&limit: {messages: [{id, kind, text, created_at, channel, status,
//                               …}], next_after}; 404 unknown_user before the user's first message. A message is
//                               stored (channel pull) until a receipt names it
//   POST /webhook/agent/outbox/receipts  {user_id, channel: "web", shown: [ids]} (the key as above): each stored
//                               message named becomes delivered on web; {receipts: [{id, channel, status,
//                               delivered_at}], unknown_ids} as the Record Receipts operation answers
// Control: queue(text, kind) adds an outbox message as the tick does; hear(audio, text) what a recording says;
// transcription(on) switches voice on or off; `calls` are the requests it took.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AssistantWebhookFake {
  /** The webhook base, like n8n's http://127.0.0.1:5678/webhook. */
  url: string;
  calls: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: unknown }>;
  /** The operator's outbox as it now is (status and channel show the receipts). */
  outbox(): Array<{ id: number; text: string; channel: string; status: string; delivered_at: string | null }>;
  queue(text: string, kind?: string): void;
  hear(audio: Buffer, text: string): void;
  transcription(on: boolean): void;
  close(): Promise<void>;
}

interface Row {
  id: number;
  kind: string;
  text: string;
  created_at: string;
  channel: string;
  status: string;
  delivered_at: string | null;
}

export async function startAssistantWebhookFake(key: string, header = 'x-api-key'): Promise<AssistantWebhookFake> {
  const calls: AssistantWebhookFake['calls'] = [];
  const users = new Set<string>();
  const outbox = new Map<string, Row[]>();
  const questions = new Map<string, string>();
  const transcripts = new Map<string, string>();
  let transcriptionOn = true;
  let nextId = 1;
  let turn = 100;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { error: { code, message } });

  const queueFor = (userId: string, text: string, kind: string) => {
    const rows = outbox.get(userId) ?? [];
    const row = { id: nextId++, kind, text, created_at: new Date().toISOString() };
    rows.push({ ...row, channel: 'pull', status: 'stored', delivered_at: null });
    outbox.set(userId, rows);
  };

  async function agent(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const voice = body.voice as { data?: string } | undefined;
    if (!voice) return await answer(res, body, String(body.message));
    if (!transcriptionOn) {
      return fail(
        res,
        503,
        'transcription_off',
        'I can only read text for now: to send voice messages, set up the Assistant Transcription credential (docs/VOICE.md).',
      );
    }
    const heard = transcripts.get(String(voice.data));
    if (!heard) return fail(res, 422, 'no_words', 'I could not make out any words in that voice message.');
    return await answer(res, body, heard, heard);
  }

  async function answer(res: ServerResponse, body: Record<string, unknown>, message: string, transcript?: string) {
    const userId = String(body.user_id);
    const sessionId = String(body.session_id ?? 'default');
    users.add(userId);
    const heard = transcript === undefined ? {} : { transcript };
    const base = { user_id: userId, session_id: sessionId, turn_id: ++turn };
    if (typeof body.reply_to === 'string') {
      const kind = questions.get(body.reply_to);
      if (!kind) return fail(res, 400, 'invalid_request', 'reply_to: no open question with this id');
      questions.delete(body.reply_to);
      const said = kind === 'one_time_code' ? 'the code' : JSON.stringify(message);
      return send(res, 200, { reply: `Thanks, I got ${said}.`, user_id: userId, session_id: sessionId, ...heard });
    }
    for (const [word, kind, question] of [
      ['approve', 'approval', 'May I install the expert **"tax"**? Answer yes or no.'],
      ['code', 'one_time_code', 'What is the code from your authenticator app?'],
    ] as const) {
      if (message.includes(word)) {
        const id = randomUUID();
        questions.set(id, kind);
        const expires = new Date(Date.now() + 300_000).toISOString();
        return send(res, 200, { needs_input: { id, kind, question, expires_at: expires }, ...base, ...heard });
      }
    }
    if (message.includes('slow')) {
      queueFor(userId, `Late reply to: ${message}`, 'reply');
      const error = { code: 'reply_pending', message: `No reply: the assistant is still working on turn ${turn}.` };
      return send(res, 504, { error, turn_id: turn, ...heard });
    }
    return send(res, 200, { reply: `You said: **${message}**`, ...base, ...heard });
  }

  function listOutbox(res: ServerResponse, query: URLSearchParams) {
    const userId = query.get('user_id') ?? '';
    if (!users.has(userId)) {
      return fail(res, 404, 'unknown_user', `user_id: no user "${userId}" has talked to the assistant`);
    }
    const after = Number(query.get('after') ?? '0');
    const limit = Number(query.get('limit') ?? '100');
    const messages = (outbox.get(userId) ?? []).filter((row) => row.id > after).slice(0, limit);
    send(res, 200, { messages, next_after: messages.at(-1)?.id ?? after });
  }

  function receipts(res: ServerResponse, body: Record<string, unknown> | null) {
    const userId = String(body?.user_id ?? '');
    const shown = body?.shown;
    if (body?.channel !== 'web' || !Array.isArray(shown) || shown.length === 0) {
      return fail(res, 400, 'invalid_request', 'shown: must be a list of 1 to 500 outbox message ids');
    }
    if (!users.has(userId)) {
      return fail(res, 404, 'unknown_user', `user_id: no user "${userId}" has talked to the assistant`);
    }
    const rows = (outbox.get(userId) ?? []).filter((row) => shown.includes(row.id));
    for (const row of rows) {
      if (row.status !== 'stored') continue;
      Object.assign(row, { status: 'delivered', channel: 'web', delivered_at: new Date().toISOString() });
    }
    const found = rows.map((row) => row.id);
    send(res, 200, {
      receipts: rows.map(({ id, channel, status, delivered_at }) => ({ id, channel, status, delivered_at })),
      unknown_ids: shown.filter((id) => !found.includes(id as number)),
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      calls.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body });
      const given = req.headers[header];
      if (given === undefined)
        return fail(res, 401, 'unauthenticated', 'Missing API key: send it in the X-API-Key header');
      if (given !== key) return fail(res, 403, 'forbidden', 'Invalid API key');
      if (req.method === 'POST' && url.pathname === '/webhook/agent') return void agent(req, res, body ?? {});
      if (req.method === 'GET' && url.pathname === '/webhook/agent/outbox') return listOutbox(res, url.searchParams);
      if (req.method === 'POST' && url.pathname === '/webhook/agent/outbox/receipts') return receipts(res, body);
      fail(res, 404, 'not_found', 'The requested webhook is not registered.');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    calls,
    queue: (text, kind = 'reminder') => queueFor('owner', text, kind),
    outbox: () => (outbox.get('owner') ?? []).map((row) => ({ ...row })),
    hear: (audio, text) => transcripts.set(audio.toString('base64'), text),
    transcription: (on) => {
      transcriptionOn = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
