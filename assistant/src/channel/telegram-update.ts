// A Telegram Update (https://core.telegram.org/bots/api#update) as the Telegram entry's request: the channel
// contract's inbound message (channels/telegram.ts) in the shape the workflow reads. A voice
// note comes with an empty message and `voice`: the workflow transcribes it (voice/) before it is stored.
import { parseTelegramUpdate, telegramChatId } from '../channels/telegram';
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

/** The chat an update came from, when it has one. */
export const chatIdOf = telegramChatId;

/** The contract's inbound message as the Telegram entry's request; only text and voice are taken there. */
export function normaliseTelegramUpdate(update: unknown): TelegramUpdateResult {
  const parsed = parseTelegramUpdate(update);
  if (parsed.kind === 'ignored') return parsed;
  const chatId = telegramChatId(update)!;
  if (parsed.kind === 'refused') return { kind: 'unsupported', chatId, reason: parsed.refusal.message };
  const { message } = parsed;
  if (message.text.trim() === '' && !message.voice) {
    return { kind: 'unsupported', chatId, reason: 'only text and voice messages are supported' };
  }
  return {
    kind: 'message',
    request: {
      channel: 'telegram',
      externalId: chatId,
      chatId,
      message: message.text,
      sessionId: message.sessionId,
      ...(message.replyTo !== undefined ? { replyToMessageId: message.replyTo } : {}),
      ...(message.voice ? { voice: message.voice } : {}),
      metadata: message.metadata as TelegramRequest['metadata'],
    },
  };
}
