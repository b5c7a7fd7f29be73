// The web chat's server side: the console forwards the signed-in operator's messages to the assistant's webhook
// (POST <url>/agent as user_id "owner", session "web-chat", with the key from the console's config, never given
// to the browser) and hands the page what the assistant says on its own by long polling its outbox
// (GET <url>/agent/outbox?user_id=owner&after=<cursor>): reminders, check notices, failure reports, late replies.
// Replies and questions come back as safe HTML (markdown.ts); a question with its buttons (an approval) or field
// (a one-time code, a free answer), as the channel contract's web chat renders them (assistant/src/channels).
// A voice note recorded on the page goes to the webhook's `voice` input as base64, and its transcript comes back.
// Once the page has shown outbox messages it says so, and the console records the receipt in the assistant's
// outbox (POST <url>/agent/outbox/receipts, channel "web"): a message stored for pulling is then delivered on the
// web chat, and a page opened later shows it as history, not as news. A page opened shows the last messages and
// every one still stored (never shown), however old.
import { ApiError } from '../../protocol/errors';
import { renderMarkdown } from './markdown';
import type { AssistantEntry } from './settings';

/** The operator's identity on the webhook (assistant-core's OPERATOR_API_USER_ID). */
export const WEB_CHAT_USER = 'owner';
export const WEB_CHAT_SESSION = 'web-chat';
export const WEB_CHAT_MAX_MESSAGE = 32_000;
/** How long one events call waits for a message before it answers empty (the page asks again). */
export const EVENTS_WAIT_MS = 20_000;
/** The webhook's own limit on a voice note's audio (assistant-core's MAX_WEBHOOK_VOICE_BYTES). */
export const WEB_CHAT_MAX_VOICE_BYTES = 3_000_000;
/** What the webhook's voice input takes (assistant-core's VOICE_MIME_TYPES); the page records webm or ogg. */
export const WEB_CHAT_VOICE_TYPES = ['audio/webm', 'audio/ogg', 'audio/mpeg', 'audio/mp4', 'audio/wav', 'audio/flac'];
/** The most outbox message ids one receipt from the page names. */
export const WEB_CHAT_MAX_RECEIPT = 500;
const QUESTION_ID = /^[0-9a-f-]{36}$/i;
const POLL_EVERY_MS = 1000;
/** A page opened shows the last this many messages, and before them every one never shown, up to UNSHOWN. */
const HISTORY = 20;
const UNSHOWN = 200;

export interface ChatControls {
  buttons?: Array<{ label: string; answer: string }>;
  field?: { kind: 'code' | 'text'; replyTo: string };
}

export interface ChatQuestion extends ChatControls {
  id: string;
  kind: string;
  html: string;
}

interface OutboxRow {
  id: number;
  kind: string;
  text: string;
  created_at: string;
  data?: Record<string, unknown>;
  /** 'stored': waiting for a client that pulls (never shown); 'delivered' on 'web': shown on the web chat. */
  status?: string;
  channel?: string;
}

export interface WebChatOptions {
  entry?: AssistantEntry;
  fetchImpl?: typeof fetch;
  /** Waits between outbox polls; tests pass a short one. */
  pollEveryMs?: number;
  eventsWaitMs?: number;
}

/** The buttons (an approval) or the field (a one-time code, a free answer) a question is answered with. */
export function questionControls(id: string, kind: string): ChatControls {
  if (kind === 'approval') {
    return {
      buttons: [
        { label: 'Yes', answer: 'yes' },
        { label: 'No', answer: 'no' },
      ],
    };
  }
  return { field: { kind: kind === 'one_time_code' ? 'code' : 'text', replyTo: id } };
}

function invalid(field: string, message: string): never {
  throw new ApiError(400, `${field}: ${message}`, 'invalid_request');
}

/** The page's body {message, reply_to?}, checked before anything is forwarded. */
export function parseChatMessage(body: unknown): { message: string; replyTo?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => key !== 'message' && key !== 'reply_to');
  if (unknown !== undefined) invalid(unknown, 'is not a known field (use message, reply_to)');
  const { message, reply_to: replyTo } = fields;
  if (typeof message !== 'string' || message.trim() === '') invalid('message', 'must be a non-empty string');
  if (message.length > WEB_CHAT_MAX_MESSAGE) invalid('message', `must be at most ${WEB_CHAT_MAX_MESSAGE} characters`);
  if (replyTo === undefined || replyTo === null) return { message };
  if (typeof replyTo !== 'string' || !QUESTION_ID.test(replyTo)) {
    invalid('reply_to', 'must be the id of the question this message answers');
  }
  return { message, replyTo };
}

/** A recorded voice note: the audio's type (parameters dropped), the audio, and the question it answers. */
export function parseChatVoice(
  audio: Buffer,
  contentType: string | undefined,
  replyTo: string | null,
): { data: string; mimeType: string; replyTo?: string } {
  const mimeType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!WEB_CHAT_VOICE_TYPES.includes(mimeType)) {
    throw new ApiError(415, `Send the recording as one of ${WEB_CHAT_VOICE_TYPES.join(', ')}.`, 'invalid_request');
  }
  if (audio.length === 0) invalid('body', 'must be the recorded audio');
  if (replyTo !== null && !QUESTION_ID.test(replyTo)) {
    invalid('reply_to', 'must be the id of the question this message answers');
  }
  return { data: audio.toString('base64'), mimeType, ...(replyTo ? { replyTo } : {}) };
}

/** The page's receipt {shown: [outbox message ids]}: what it has shown. */
export function parseChatReceipt(body: unknown): number[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => key !== 'shown');
  if (unknown !== undefined) invalid(unknown, 'is not a known field (use shown)');
  const { shown } = fields;
  if (!Array.isArray(shown) || shown.length === 0 || shown.length > WEB_CHAT_MAX_RECEIPT) {
    invalid('shown', `must be a list of 1 to ${WEB_CHAT_MAX_RECEIPT} outbox message ids`);
  }
  if (!shown.every((id) => Number.isSafeInteger(id) && (id as number) > 0)) {
    invalid('shown', 'must hold the ids of the messages the page showed (whole numbers from 1)');
  }
  return shown as number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class WebChat {
  private readonly fetchImpl: typeof fetch;
  private readonly pollEveryMs: number;
  private readonly eventsWaitMs: number;
  /** The assistant said transcription is off (503 transcription_off): the page stops offering the microphone. */
  private transcriptionOff = false;

  constructor(private readonly options: WebChatOptions) {
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.pollEveryMs = options.pollEveryMs ?? POLL_EVERY_MS;
    this.eventsWaitMs = options.eventsWaitMs ?? EVENTS_WAIT_MS;
  }

  get on(): boolean {
    return this.options.entry !== undefined;
  }

  /** Whether the page offers a microphone: the setting says the assistant transcribes, and it has not said no. */
  get voice(): boolean {
    return this.options.entry?.voice === true && !this.transcriptionOff;
  }

  private entry(): AssistantEntry {
    if (!this.options.entry) {
      throw new ApiError(
        503,
        'The web chat is off: set JUDGE_CONSOLE_ASSISTANT_URL (the webhook base, like http://127.0.0.1:5678/webhook) ' +
          'and JUDGE_CONSOLE_ASSISTANT_KEY (the assistant API key) for the judge.',
        'web_chat_off',
      );
    }
    return this.options.entry;
  }

  /** One call of the assistant's webhook; its status and JSON. Never names the key. */
  private async call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const entry = this.entry();
    let response: Response;
    try {
      response = await this.fetchImpl(`${entry.url}/${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), [entry.keyHeader]: entry.key },
      });
    } catch (error) {
      throw new ApiError(502, `The assistant at ${entry.url} could not be reached (${(error as Error).message}).`);
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: response.status, body };
  }

  /** Sends the operator's message; answers the reply, the question the run waits on, or that it is still working. */
  async send(body: unknown): Promise<Record<string, unknown>> {
    const { message, replyTo } = parseChatMessage(body);
    return await this.forward({ message, ...(replyTo ? { reply_to: replyTo } : {}) });
  }

  /** Sends a recorded voice note; answers as `send` does, with the transcript the assistant heard. */
  async sendVoice(audio: Buffer, contentType: string | undefined, replyTo: string | null) {
    const voice = parseChatVoice(audio, contentType, replyTo);
    return await this.forward({
      voice: { data: voice.data, mime_type: voice.mimeType },
      ...(voice.replyTo ? { reply_to: voice.replyTo } : {}),
    });
  }

  private async forward(fields: Record<string, unknown>): Promise<Record<string, unknown>> {
    const payload = { ...fields, user_id: WEB_CHAT_USER, session_id: WEB_CHAT_SESSION };
    // The webhook waits for the run up to its reply deadline; so does this request.
    const { status, body: answer } = await this.call('agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const error = answer.error as { code?: string; message?: string } | undefined;
    const transcript = typeof answer.transcript === 'string' ? { transcript: answer.transcript } : {};
    if (status === 504 && error?.code === 'reply_pending') {
      const note = 'Still working on it: the reply will appear here.';
      return { pending: true, turn_id: answer.turn_id, note, ...transcript };
    }
    if (error?.code === 'transcription_off') {
      this.transcriptionOff = true;
      throw new ApiError(503, error.message ?? 'The assistant does not transcribe voice.', 'transcription_off');
    }
    if (status >= 400 || error) {
      const why = error?.message ?? `HTTP ${status}`;
      throw new ApiError(status >= 500 ? 502 : status, `The assistant answered: ${why}`, error?.code);
    }
    const asked = answer.needs_input as { id: string; kind?: string; question: string } | undefined;
    if (asked) {
      const kind = asked.kind ?? 'question';
      const question: ChatQuestion = {
        id: asked.id,
        kind,
        html: renderMarkdown(asked.question),
        ...questionControls(asked.id, kind),
      };
      return { question, turn_id: answer.turn_id, ...transcript };
    }
    const reply = typeof answer.reply === 'string' ? answer.reply : '';
    return { reply: { html: renderMarkdown(reply) }, turn_id: answer.turn_id, ...transcript };
  }

  private async outbox(after: number, limit: number): Promise<OutboxRow[]> {
    const query = `agent/outbox?user_id=${WEB_CHAT_USER}&after=${after}&limit=${limit}`;
    const { status, body } = await this.call(query);
    // The operator has not talked to the assistant yet: nothing to show.
    if (status === 404 && (body.error as { code?: string } | undefined)?.code === 'unknown_user') return [];
    if (status !== 200 || !Array.isArray(body.messages)) {
      const error = body.error as { message?: string } | undefined;
      throw new ApiError(502, `The assistant's outbox answered HTTP ${status}: ${error?.message ?? 'no messages'}`);
    }
    return body.messages as OutboxRow[];
  }

  /**
   * Without `after`: the last messages (`earlier` when already delivered) and every one never shown, and the cursor
   * after them. With it: the messages after the cursor, waiting
   * (polling the outbox) until there is one or the wait is over; the page asks again with the new cursor.
   */
  async events(afterParameter: string | null, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (afterParameter === null) {
      let last: OutboxRow[] = [];
      let unshown: OutboxRow[] = [];
      let after = 0;
      for (let page = 0; page < 50; page++) {
        const next = await this.outbox(after, 500);
        const all = [...last, ...next];
        // Older than the last few: kept only while never shown (still stored for pulling).
        unshown = [...unshown, ...all.slice(0, -HISTORY).filter((row) => row.status === 'stored')].slice(-UNSHOWN);
        last = all.slice(-HISTORY);
        if (next.length < 500) break;
        after = next.at(-1)!.id;
      }
      const rows = [...unshown, ...last];
      // Already delivered (shown on a page before, or sent on Telegram or to a callback): history, not news.
      const messages = rows.map((row) => ({ ...shown(row), earlier: row.status !== 'stored' }));
      return { messages, cursor: rows.at(-1)?.id ?? after };
    }
    if (!/^\d{1,18}$/.test(afterParameter)) invalid('after', 'must be the cursor the last events call returned');
    const after = Number(afterParameter);
    const until = Date.now() + this.eventsWaitMs;
    for (;;) {
      const rows = await this.outbox(after, 100);
      if (rows.length > 0 || Date.now() >= until || signal?.aborted) {
        return { messages: rows.map(shown), cursor: rows.at(-1)?.id ?? after };
      }
      await sleep(this.pollEveryMs);
    }
  }

  /** The page has shown these outbox messages: the receipt, recorded in the assistant's outbox. */
  async receipt(body: unknown): Promise<Record<string, unknown>> {
    const shownIds = parseChatReceipt(body);
    const { status, body: answer } = await this.call('agent/outbox/receipts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: WEB_CHAT_USER, channel: 'web', shown: shownIds }),
    });
    if (status !== 200 || !Array.isArray(answer.receipts)) {
      const error = answer.error as { message?: string } | undefined;
      throw new ApiError(502, `The assistant's receipts answered HTTP ${status}: ${error?.message ?? 'no receipts'}`);
    }
    return { receipts: answer.receipts };
  }
}

function shown(row: OutboxRow) {
  return { id: row.id, kind: row.kind, html: renderMarkdown(row.text), created_at: row.created_at };
}
