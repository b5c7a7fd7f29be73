// A loopback Telegram Bot API (https://core.telegram.org/bots/api), reached through a credential's base URL.
//
// Served as Telegram does: /bot<token>/<method> (method names case-insensitive; parameters from the query string,
// JSON or form bodies), answers `{ok: true, result}` or `{ok: false, error_code, description}`. Methods: getMe,
// setWebhook (remembers url, secret_token, allowed_updates and an uploaded certificate), deleteWebhook, getWebhookInfo, getUpdates,
// sendMessage (4,096-character limit, HTML parse_mode checked like Telegram's parser), sendPhoto (a multipart upload,
// checked to be a PNG or JPEG, or a file_id/URL string), sendChatAction, getFile and the file download
// (/file/bot<token>/<file_path>) of files a test registered.
//
// Control routes for tests:
//   POST   /__deliver {update} or {message: {chat_id, text, from?, reply_to?}}  → posts an Update to the registered webhook
//          with the X-Telegram-Bot-Api-Secret-Token header; answers {status, body} of the webhook's reply
//   GET    /__sent?chat_id=…   messages the bot sent (sendMessage), oldest first
//   GET    /__actions?chat_id=… chat actions the bot sent (sendChatAction: chat_id and an action from Telegram's list
//          are required, as Telegram does), oldest first, with the time each came
//   GET    /__webhook           the registered webhook (url, secret_token, allowed_updates, certificate)
//   DELETE /__sent              forget sent messages and actions
//   POST   /__files {file_id, base64, file_path}  a file users "sent" (a voice note), for getFile and its download
//   POST   /__blocked {chat_id, blocked}  a user who blocked the bot: sendMessage and sendPhoto to that chat answer 403
//          "Forbidden: bot was blocked by the user", as Telegram does
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readBody, sendJson } from './http-util';

export const TELEGRAM_MESSAGE_LIMIT = 4096;

export interface TelegramBotApiFakeOptions {
  /** The bot token the fake accepts; any other token gets 401 Unauthorized. */
  token: string;
  botUsername?: string;
}

export interface SentMessage {
  message_id: number;
  chat_id: string;
  text: string;
  parse_mode?: string;
  /** sendPhoto: what was uploaded (or the file_id/URL given). */
  photo?: { file_name?: string; mime_type?: string; size?: number; format?: 'png' | 'jpeg'; ref?: string };
  at: string;
}

/** A chat action the bot sent ("typing…"), and when. */
export interface ChatAction {
  chat_id: string;
  action: string;
  at: string;
}

/** A file part of a multipart request. */
interface UploadedFile {
  fileName: string;
  mimeType: string;
  bytes: Buffer;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface TelegramBotApiFake {
  url: string;
  token: string;
  close(): Promise<void>;
}

interface Webhook {
  url: string;
  secret_token?: string;
  allowed_updates?: string[];
  /** The uploaded public certificate (PEM), for a self-signed one. */
  certificate?: string;
}

class TelegramError extends Error {
  constructor(
    readonly code: number,
    description: string,
  ) {
    super(description);
  }
}

const ALLOWED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

/** Parses Telegram-style HTML and returns the visible text, or throws Telegram's "can't parse entities" error. */
export function visibleTextOfHtml(html: string): string {
  const open: string[] = [];
  let text = '';
  let at = 0;
  const fail = (reason: string): never => {
    throw new TelegramError(
      400,
      `Bad Request: can't parse entities: ${reason} at byte offset ${Buffer.byteLength(html.slice(0, at))}`,
    );
  };
  while (at < html.length) {
    const char = html[at];
    if (char === '<') {
      const end = html.indexOf('>', at);
      if (end < 0) fail('Unclosed start tag');
      const tag = html.slice(at + 1, end).trim();
      const closing = tag.startsWith('/');
      const name = (closing ? tag.slice(1) : tag).split(/\s/)[0].toLowerCase();
      if (!ALLOWED_TAGS.has(name)) fail(`Unsupported ${closing ? 'end' : 'start'} tag "${name}"`);
      if (closing) {
        if (open.pop() !== name) fail(`Unmatched end tag "${name}"`);
      } else {
        open.push(name);
      }
      at = end + 1;
    } else if (char === '&') {
      const end = html.indexOf(';', at);
      const entity = end < 0 ? '' : html.slice(at + 1, end);
      if (entity in NAMED_ENTITIES) text += NAMED_ENTITIES[entity];
      else if (/^#\d+$/.test(entity)) text += String.fromCodePoint(Number(entity.slice(1)));
      else if (/^#x[0-9a-f]+$/i.test(entity)) text += String.fromCodePoint(parseInt(entity.slice(2), 16));
      else fail('Character entity expected');
      at = end + 1;
    } else {
      text += char;
      at++;
    }
  }
  if (open.length > 0) fail(`Can't find end tag corresponding to start tag "${open[open.length - 1]}"`);
  return text;
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams.entries());
  const bytes = await readBytes(req);
  if (bytes.length === 0) return params;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('multipart/form-data')) {
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
    } catch {
      throw new TelegramError(400, 'Bad Request: invalid multipart body');
    }
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') params[name] = value;
      else {
        const file: UploadedFile = {
          fileName: value.name,
          mimeType: value.type,
          bytes: Buffer.from(await value.arrayBuffer()),
        };
        params[name] = file;
      }
    }
    return params;
  }
  const raw = bytes.toString('utf8');
  if (type.includes('application/json')) {
    try {
      return { ...params, ...(JSON.parse(raw) as Record<string, unknown>) };
    } catch {
      throw new TelegramError(400, 'Bad Request: invalid JSON body');
    }
  }
  if (type.includes('application/x-www-form-urlencoded'))
    return { ...params, ...Object.fromEntries(new URLSearchParams(raw).entries()) };
  throw new TelegramError(400, `Bad Request: unsupported content type "${type}"`);
}

export async function startTelegramBotApiFake(options: TelegramBotApiFakeOptions): Promise<TelegramBotApiFake> {
  const bot = {
    id: Number(options.token.split(':')[0]) || 7000000001,
    is_bot: true,
    first_name: 'Assistant',
    username: options.botUsername ?? 'assistant_test_bot',
  };
  let webhook: Webhook | null = null;
  const sent: SentMessage[] = [];
  const actions: ChatAction[] = [];
  const blocked = new Set<string>();
  const refuseBlocked = (chatId: string) => {
    if (blocked.has(chatId)) throw new TelegramError(403, 'Forbidden: bot was blocked by the user');
  };
  const pendingUpdates: Array<Record<string, unknown>> = [];
  let nextMessageId = 1;
  let nextUpdateId = 100000;
  const files = new Map<string, { bytes: Buffer; filePath: string }>();

  const required = (params: Record<string, unknown>, name: string): string => {
    const value = params[name];
    if (value === undefined || value === null || value === '')
      throw new TelegramError(400, `Bad Request: ${name} is empty`);
    return String(value);
  };

  const methods: Record<string, (params: Record<string, unknown>) => unknown> = {
    getme: () => bot,
    setwebhook: (params) => {
      const url = String(params.url ?? '');
      if (url === '') {
        webhook = null;
        return true;
      }
      if (!/^https?:\/\//.test(url))
        throw new TelegramError(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
      const secret = params.secret_token === undefined ? undefined : String(params.secret_token);
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
        throw new TelegramError(400, 'Bad Request: secret token contains unallowed characters');
      }
      const allowed =
        typeof params.allowed_updates === 'string'
          ? (JSON.parse(params.allowed_updates) as string[])
          : (params.allowed_updates as string[] | undefined);
      // Telegram takes the certificate only as an uploaded file (InputFile), in PEM or DER; a string is refused.
      let certificate: string | undefined;
      if (params.certificate !== undefined) {
        const file = params.certificate as UploadedFile;
        if (!Buffer.isBuffer(file.bytes)) throw new TelegramError(400, 'Bad Request: certificate must be uploaded');
        certificate = file.bytes.toString('utf8');
        if (!/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(certificate)) {
          throw new TelegramError(400, 'Bad Request: bad webhook: Failed to set custom certificate file');
        }
      }
      webhook = { url, secret_token: secret, allowed_updates: allowed, ...(certificate ? { certificate } : {}) };
      return true;
    },
    deletewebhook: () => {
      webhook = null;
      return true;
    },
    getwebhookinfo: () => ({
      url: webhook?.url ?? '',
      has_custom_certificate: webhook?.certificate !== undefined,
      pending_update_count: pendingUpdates.length,
      ...(webhook?.allowed_updates ? { allowed_updates: webhook.allowed_updates } : {}),
    }),
    getupdates: (params) => {
      if (webhook)
        throw new TelegramError(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
      const offset = Number(params.offset ?? 0);
      const result = pendingUpdates.filter((update) => Number(update.update_id) >= offset);
      if (offset > 0) pendingUpdates.splice(0, pendingUpdates.length, ...result);
      return result;
    },
    sendmessage: (params) => {
      const chatId = required(params, 'chat_id');
      refuseBlocked(String(chatId));
      const text = params.text === undefined ? '' : String(params.text);
      const parseMode = params.parse_mode === undefined ? undefined : String(params.parse_mode);
      let visible = text;
      if (parseMode?.toLowerCase() === 'html') visible = visibleTextOfHtml(text);
      else if (parseMode !== undefined && !['markdown', 'markdownv2'].includes(parseMode.toLowerCase())) {
        throw new TelegramError(400, `Bad Request: unsupported parse_mode "${parseMode}"`);
      }
      if (visible.trim() === '') throw new TelegramError(400, 'Bad Request: message text is empty');
      if (visible.length > TELEGRAM_MESSAGE_LIMIT) throw new TelegramError(400, 'Bad Request: message is too long');
      const message = {
        message_id: nextMessageId++,
        chat_id: chatId,
        text,
        parse_mode: parseMode,
        at: new Date().toISOString(),
      };
      sent.push(message);
      return {
        message_id: message.message_id,
        from: bot,
        chat: { id: Number(chatId) || chatId, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text: visible,
      };
    },
    sendphoto: (params) => {
      const chatId = required(params, 'chat_id');
      refuseBlocked(String(chatId));
      const photo = params.photo;
      let described: SentMessage['photo'];
      if (photo && typeof photo === 'object' && Buffer.isBuffer((photo as UploadedFile).bytes)) {
        const file = photo as UploadedFile;
        const format = file.bytes.subarray(0, 8).equals(PNG_MAGIC)
          ? 'png'
          : file.bytes[0] === 0xff && file.bytes[1] === 0xd8
            ? 'jpeg'
            : undefined;
        if (!format) throw new TelegramError(400, 'Bad Request: IMAGE_PROCESS_FAILED');
        described = { file_name: file.fileName, mime_type: file.mimeType, size: file.bytes.length, format };
      } else if (typeof photo === 'string' && photo !== '') {
        described = { ref: photo };
      } else {
        throw new TelegramError(400, 'Bad Request: there is no photo in the request');
      }
      const caption = params.caption === undefined ? '' : String(params.caption);
      const message = {
        message_id: nextMessageId++,
        chat_id: chatId,
        text: caption,
        photo: described,
        at: new Date().toISOString(),
      };
      sent.push(message);
      return {
        message_id: message.message_id,
        from: bot,
        chat: { id: Number(chatId) || chatId, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        photo: [
          {
            file_id: `photo-${message.message_id}`,
            file_unique_id: `u${message.message_id}`,
            width: 1280,
            height: 800,
          },
        ],
        ...(caption ? { caption } : {}),
      };
    },
    getfile: (params) => {
      const fileId = required(params, 'file_id');
      const file = files.get(fileId);
      if (!file) throw new TelegramError(400, 'Bad Request: invalid file_id');
      return { file_id: fileId, file_unique_id: `u-${fileId}`, file_size: file.bytes.length, file_path: file.filePath };
    },
    sendchataction: (params) => {
      const chatId = required(params, 'chat_id');
      const action = required(params, 'action');
      if (!CHAT_ACTIONS.has(action)) throw new TelegramError(400, 'Bad Request: wrong parameter action in request');
      actions.push({ chat_id: chatId, action, at: new Date().toISOString() });
      return true;
    },
  };

  async function deliver(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse(await readBody(req)) as {
      update?: Record<string, unknown>;
      message?: { chat_id: number | string; text: string; from?: Record<string, unknown>; reply_to?: number };
    };
    let update: Record<string, unknown>;
    if (body.update) {
      update = { update_id: nextUpdateId++, ...body.update };
    } else if (body.message) {
      const chatId = Number(body.message.chat_id);
      const from = body.message.from ?? { id: chatId, is_bot: false, first_name: 'Test', language_code: 'en' };
      update = {
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          from,
          chat: { id: chatId, type: 'private', first_name: from.first_name },
          date: Math.floor(Date.now() / 1000),
          text: body.message.text,
          ...(body.message.reply_to === undefined
            ? {}
            : {
                reply_to_message: {
                  message_id: body.message.reply_to,
                  from: bot,
                  chat: { id: chatId, type: 'private' },
                  date: Math.floor(Date.now() / 1000),
                },
              }),
        },
      };
    } else {
      return sendJson(res, 400, { error: 'give update or message' });
    }
    if (!webhook) {
      pendingUpdates.push(update);
      return sendJson(res, 200, { status: null, body: null, queued: true, update });
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (webhook.secret_token) headers['x-telegram-bot-api-secret-token'] = webhook.secret_token;
    const response = await fetch(webhook.url, { method: 'POST', headers, body: JSON.stringify(update) });
    sendJson(res, 200, { status: response.status, body: await response.text(), update });
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const chatId = url.searchParams.get('chat_id');
    if (url.pathname === '/__deliver' && req.method === 'POST') return deliver(req, res);
    if (url.pathname === '/__sent' && req.method === 'GET')
      return sendJson(
        res,
        200,
        sent.filter((m) => chatId === null || m.chat_id === chatId),
      );
    if (url.pathname === '/__actions' && req.method === 'GET')
      return sendJson(
        res,
        200,
        actions.filter((a) => chatId === null || a.chat_id === chatId),
      );
    if (url.pathname === '/__webhook' && req.method === 'GET') return sendJson(res, 200, webhook);
    if (url.pathname === '/__files' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { file_id: string; base64: string; file_path: string };
      files.set(body.file_id, { bytes: Buffer.from(body.base64, 'base64'), filePath: body.file_path });
      return sendJson(res, 201, { ok: true });
    }
    if (url.pathname === '/__blocked' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { chat_id: string | number; blocked: boolean };
      if (body.blocked) blocked.add(String(body.chat_id));
      else blocked.delete(String(body.chat_id));
      return sendJson(res, 200, { ok: true });
    }
    if (url.pathname === '/__sent' && req.method === 'DELETE') {
      sent.length = 0;
      actions.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    sendJson(res, 404, { error: `no control route ${req.method} ${url.pathname}` });
  }

  const running = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/__')) return control(req, res, url);
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download) {
      if (download[1] !== options.token)
        return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const file = [...files.values()].find((entry) => entry.filePath === download[2]);
      if (!file) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
      return void res.end(file.bytes);
    }
    const route = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!route) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (route[1] !== options.token)
      return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = methods[route[2].toLowerCase()];
    if (!method) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    try {
      const params = await readParams(req, url);
      sendJson(res, 200, { ok: true, result: method(params) });
    } catch (error) {
      if (error instanceof TelegramError)
        return sendJson(res, error.code, { ok: false, error_code: error.code, description: error.message });
      throw error;
    }
  });
  return { url: running.url, token: options.token, close: running.close };
}

/** Drives a running fake from a test worker. */
export class TelegramBotApiFakeControl {
  constructor(private readonly baseUrl: string) {}

  /** Delivers a user's text message; `replyTo`: the id of the bot's message it replies to. */
  async deliverText(
    chatId: number,
    text: string,
    from?: Record<string, unknown>,
    replyTo?: number,
  ): Promise<{ status: number | null; body: string | null }> {
    const response = await fetch(`${this.baseUrl}/__deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { chat_id: chatId, text, from, reply_to: replyTo } }),
    });
    return (await response.json()) as { status: number | null; body: string | null };
  }

  /** A voice note from a user: the file registered (its bytes), then the update delivered to the webhook. */
  async deliverVoice(chatId: number, audio: Buffer, mimeType = 'audio/ogg'): Promise<{ status: number | null }> {
    const fileId = `voice-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    await fetch(`${this.baseUrl}/__files`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ file_id: fileId, base64: audio.toString('base64'), file_path: `voice/${fileId}.oga` }),
    });
    const from = { id: chatId, is_bot: false, first_name: 'Test', language_code: 'en' };
    const update = {
      message: {
        message_id: Math.floor(Math.random() * 1e6) + 1e6,
        from,
        chat: { id: chatId, type: 'private', first_name: 'Test' },
        date: Math.floor(Date.now() / 1000),
        voice: {
          file_id: fileId,
          file_unique_id: `u-${fileId}`,
          duration: 3,
          mime_type: mimeType,
          file_size: audio.length,
        },
      },
    };
    const response = await fetch(`${this.baseUrl}/__deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ update }),
    });
    return (await response.json()) as { status: number | null };
  }

  /** The user of `chatId` blocks (or unblocks) the bot: sends to that chat answer 403 until unblocked. */
  async block(chatId: number | string, blocked = true): Promise<void> {
    const response = await fetch(`${this.baseUrl}/__blocked`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chatId, blocked }),
    });
    if (!response.ok) throw new Error(`the Telegram fake did not take the block: ${response.status}`);
  }

  async sent(chatId?: number | string): Promise<SentMessage[]> {
    const query = chatId === undefined ? '' : `?chat_id=${encodeURIComponent(String(chatId))}`;
    return (await (await fetch(`${this.baseUrl}/__sent${query}`)).json()) as SentMessage[];
  }

  /** The chat actions (sendChatAction) the bot sent, oldest first; to one chat when given. */
  async actions(chatId?: number | string): Promise<ChatAction[]> {
    const query = chatId === undefined ? '' : `?chat_id=${encodeURIComponent(String(chatId))}`;
    return (await (await fetch(`${this.baseUrl}/__actions${query}`)).json()) as ChatAction[];
  }

  async webhook(): Promise<Webhook | null> {
    return (await (await fetch(`${this.baseUrl}/__webhook`)).json()) as Webhook | null;
  }

  /** Polls until `count` messages were sent to the chat, or the time is up (then returns what there is). */
  async waitForSent(chatId: number | string, count = 1, timeoutMs = 60_000): Promise<SentMessage[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const messages = await this.sent(chatId);
      if (messages.length >= count || Date.now() > deadline) return messages;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
