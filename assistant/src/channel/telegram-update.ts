// Normalises a Telegram Update (https://core.telegram.org/bots/api#update) into the agent's request shape. A voice
// note comes with an empty message and `voice`: the workflow transcribes it (voice/) before it is stored.
import type { VoiceNote } from '../voice/voice-note';

export interface TelegramRequest {
  channel: 'telegram';
  externalId: string;
  chatId: string;
  message: string;
  sessionId: string;
  /** The id of the message the user replied to, when they did (a reply to a question answers that question). */
  replyToMessageId?: string;
  /** A voice note to transcribe into `message`. */
  voice?: VoiceNote;
  metadata: {
    telegram: { update_id: unknown; message_id: unknown; from_id: unknown; first_name?: unknown; username?: unknown };
  };
}

export type TelegramUpdateResult =
  | { kind: 'message'; request: TelegramRequest }
  | { kind: 'unsupported'; chatId: string; reason: string }
  | { kind: 'ignored'; reason: string };

interface TelegramMessage {
  message_id?: unknown;
  text?: unknown;
  caption?: unknown;
  chat?: { id?: unknown };
  from?: { id?: unknown; first_name?: unknown; username?: unknown; is_bot?: unknown };
  reply_to_message?: { message_id?: unknown };
  voice?: { file_id?: unknown; mime_type?: unknown; file_size?: unknown; duration?: unknown };
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

/** The chat an update came from, when it has one. */
export function chatIdOf(update: unknown): string | null {
  const message = messageOf(update);
  const id = message?.chat?.id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  if (typeof id === 'string' && /^-?\d{1,20}$/.test(id)) return id;
  return null;
}

function messageOf(update: unknown): TelegramMessage | undefined {
  if (typeof update !== 'object' || update === null) return undefined;
  const fields = update as Record<string, unknown>;
  return (fields.message ?? fields.edited_message) as TelegramMessage | undefined;
}

export function normaliseTelegramUpdate(update: unknown): TelegramUpdateResult {
  const message = messageOf(update);
  const chatId = chatIdOf(update);
  if (!message || chatId === null) return { kind: 'ignored', reason: 'the update carries no message from a chat' };
  if (message.from?.is_bot === true) return { kind: 'ignored', reason: 'messages from bots are ignored' };
  const text = typeof message.text === 'string' ? message.text : '';
  const voice = voiceOf(message);
  if (text.trim() === '' && !voice) {
    return { kind: 'unsupported', chatId, reason: 'only text and voice messages are supported' };
  }
  const repliedTo = message.reply_to_message?.message_id;
  return {
    kind: 'message',
    request: {
      channel: 'telegram',
      externalId: chatId,
      chatId,
      message: text,
      sessionId: `telegram:${chatId}`,
      ...(Number.isSafeInteger(repliedTo) ? { replyToMessageId: String(repliedTo) } : {}),
      ...(voice && text.trim() === '' ? { voice } : {}),
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
