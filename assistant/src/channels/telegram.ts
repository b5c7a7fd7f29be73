// Telegram on the channel contract: an Update in (https://core.telegram.org/bots/api#update: text, a voice note, a
// document or photo, a reply to the bot's message), the chat id as the identity, replies split under 4,096
// characters as Telegram HTML, a question's answers spelled out (the entry takes any message as the answer),
// sendChatAction for "typing…", and sendMessage's outcome as the delivery receipt (unknown once a part went out).
import http from 'node:http';
import https from 'node:https';

import { telegramMessages, TELEGRAM_LIMIT } from '../channel/telegram-text';
import { sendChatAction } from '../channel/typing';
import type { SendOutcome } from '../delivery/outbox';
import type { VoiceNote } from '../voice/voice-note';
import {
  messageText,
  questionControlsAsText,
  type ChannelAdapter,
  type InboundFile,
  type InboundResult,
  type OutboundMessage,
  type RenderedPart,
} from './contract';

export interface TelegramBotConfig {
  /** https://api.telegram.org, or the bot credential's base URL. */
  baseUrl: string;
  token: string;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

interface TelegramMessage {
  message_id?: unknown;
  text?: unknown;
  caption?: unknown;
  chat?: { id?: unknown };
  from?: { id?: unknown; first_name?: unknown; username?: unknown; is_bot?: unknown };
  reply_to_message?: { message_id?: unknown };
  voice?: { file_id?: unknown; mime_type?: unknown; file_size?: unknown; duration?: unknown };
  document?: { file_id?: unknown; file_name?: unknown; mime_type?: unknown; file_size?: unknown };
  photo?: Array<{ file_id?: unknown; file_size?: unknown }>;
}

export function telegramMessageOf(update: unknown): TelegramMessage | undefined {
  if (typeof update !== 'object' || update === null) return undefined;
  const fields = update as Record<string, unknown>;
  return (fields.message ?? fields.edited_message) as TelegramMessage | undefined;
}

/** The chat an update came from, when it has one. */
export function telegramChatId(update: unknown): string | null {
  const id = telegramMessageOf(update)?.chat?.id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  if (typeof id === 'string' && /^-?\d{1,20}$/.test(id)) return id;
  return null;
}

function voiceOf(message: TelegramMessage): VoiceNote | undefined {
  const voice = message.voice;
  if (!voice || typeof voice.file_id !== 'string' || voice.file_id === '') return undefined;
  return {
    fileId: voice.file_id,
    mimeType: typeof voice.mime_type === 'string' ? voice.mime_type : 'audio/ogg',
    ...(typeof voice.file_size === 'number' ? { fileSize: voice.file_size } : {}),
    ...(typeof voice.duration === 'number' ? { durationSeconds: voice.duration } : {}),
  };
}

function fileOf(message: TelegramMessage): InboundFile | undefined {
  const document = message.document;
  if (document && typeof document.file_id === 'string' && document.file_id !== '') {
    return {
      fileId: document.file_id,
      mimeType: typeof document.mime_type === 'string' ? document.mime_type : 'application/octet-stream',
      ...(typeof document.file_name === 'string' ? { fileName: document.file_name } : {}),
      ...(typeof document.file_size === 'number' ? { size: document.file_size } : {}),
    };
  }
  // A photo comes in several sizes, smallest first: the largest is the one sent.
  const largest = Array.isArray(message.photo) ? message.photo.at(-1) : undefined;
  if (largest && typeof largest.file_id === 'string' && largest.file_id !== '') {
    return {
      fileId: largest.file_id,
      mimeType: 'image/jpeg',
      ...(typeof largest.file_size === 'number' ? { size: largest.file_size } : {}),
    };
  }
  return undefined;
}

export function parseTelegramUpdate(update: unknown): InboundResult {
  const message = telegramMessageOf(update);
  const chatId = telegramChatId(update);
  if (!message || chatId === null) return { kind: 'ignored', reason: 'the update carries no message from a chat' };
  if (message.from?.is_bot === true) return { kind: 'ignored', reason: 'messages from bots are ignored' };
  const text = typeof message.text === 'string' ? message.text : '';
  const voice = voiceOf(message);
  const file = fileOf(message);
  if (text.trim() === '' && !voice && !file) {
    const refusal = {
      statusCode: 415,
      code: 'unsupported_message',
      message: 'only text and voice messages are supported',
    };
    return { kind: 'refused', refusal };
  }
  const repliedTo = message.reply_to_message?.message_id;
  return {
    kind: 'message',
    message: {
      channel: 'telegram',
      externalId: chatId,
      sessionId: `telegram:${chatId}`,
      text,
      ...(voice && text.trim() === '' ? { voice } : {}),
      ...(file ? { file } : {}),
      ...(Number.isSafeInteger(repliedTo) ? { replyTo: String(repliedTo) } : {}),
      metadata: {
        telegram: {
          update_id: (update as Record<string, unknown>).update_id,
          message_id: message.message_id,
          from_id: message.from?.id,
          first_name: message.from?.first_name,
          username: message.from?.username,
        },
      },
    },
  };
}

export function renderTelegram(message: OutboundMessage): RenderedPart[] {
  let text = messageText(message);
  if (message.question) text += `\n\n${questionControlsAsText(message.question, 'reply to this message')}`;
  return telegramMessages(text).map((part) => ({ text: part.text, format: 'telegram-html' as const }));
}

interface RawResponse {
  status: number;
  body: string;
}

/** One POST that knows whether the request left: `sent` is true once the body was fully written. */
function postJson(
  url: URL,
  payload: unknown,
  timeoutMs: number,
): Promise<{ ok: true; response: RawResponse } | { ok: false; sent: boolean; error: string }> {
  return new Promise((resolve) => {
    const body = JSON.stringify(payload);
    const transport = url.protocol === 'https:' ? https : http;
    let sent = false;
    const request = transport.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ ok: true, response: { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() } }),
        );
        response.on('error', (error) => resolve({ ok: false, sent: true, error: error.message }));
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('finish', () => (sent = true));
    request.on('error', (error) => resolve({ ok: false, sent, error: error.message }));
    request.end(body);
  });
}

/** sendMessage per part; the message ids joined by commas are the receipt. Never echoes the URL (the token). */
export async function sendTelegramParts(
  bot: TelegramBotConfig | null | undefined,
  chatId: string | null,
  parts: RenderedPart[],
): Promise<SendOutcome> {
  if (!bot?.token) {
    return { status: 'retry', error: 'no Telegram bot token is configured (the Assistant Telegram Bot credential)' };
  }
  if (!chatId) return { status: 'failed', error: 'the message has no Telegram chat id' };
  const base = bot.baseUrl.replace(/\/+$/, '') || 'https://api.telegram.org';
  const url = new URL(`${base}/bot${bot.token}/sendMessage`);
  const ids: string[] = [];
  for (const part of parts) {
    const payload = { chat_id: chatId, text: part.text, parse_mode: 'HTML' };
    const result = await postJson(url, payload, bot.timeoutMs ?? 15_000);
    const partial = ids.length > 0 ? ` (after ${ids.length} part(s) went out: ${ids.join(',')})` : '';
    if (!result.ok) {
      if (result.sent || ids.length > 0) {
        return { status: 'unknown', error: `Telegram did not confirm the send: ${result.error}${partial}` };
      }
      return { status: 'retry', error: `Telegram could not be reached: ${result.error}` };
    }
    let answer: { ok?: boolean; description?: string; result?: { message_id?: number } } = {};
    try {
      answer = JSON.parse(result.response.body);
    } catch {
      answer = {};
    }
    const status = result.response.status;
    if (status === 200 && answer.ok && answer.result?.message_id !== undefined) {
      ids.push(String(answer.result.message_id));
      continue;
    }
    const why = `Telegram answered HTTP ${status}: ${answer.description ?? result.response.body.slice(0, 200)}`;
    if (ids.length > 0) return { status: 'unknown', error: `${why}${partial}` };
    if (status === 429 || status >= 500) return { status: 'retry', error: why };
    return { status: 'failed', error: why };
  }
  return { status: 'delivered', channelMessageId: ids.join(',') };
}

export function telegramChannel(bot?: TelegramBotConfig | null): ChannelAdapter {
  return {
    name: 'telegram',
    limits: {
      maxPartLength: TELEGRAM_LIMIT,
      maxInboundLength: TELEGRAM_LIMIT,
      formatting: 'telegram-html',
      buttons: 'text',
      typing: 'chat-action',
      delivery: 'push',
    },
    parseInbound: parseTelegramUpdate,
    identityOf: (externalId) => ({ channel: 'telegram', externalId }),
    render: renderTelegram,
    send: (target, message) => sendTelegramParts(bot, target, renderTelegram(message)),
    async typing(target) {
      if (!bot?.token) throw new Error('no Telegram bot token is configured (the Assistant Telegram Bot credential)');
      await sendChatAction(bot, target);
    },
  };
}
