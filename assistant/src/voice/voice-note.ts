// A Telegram voice note turned into the user's text: downloaded, checked against the size limit, transcribed. What
// the user is told when it cannot be: voice not set up (one sentence on how), too large, or the service failing.
import { downloadTelegramFile, TelegramFileError, type TelegramApi } from './telegram-file';
import { transcribeAudio, TranscriptionError, type TranscriptionSettings } from './transcribe';

/** Telegram lets bots download files up to 20 MB; OpenAI's transcription takes up to 25 MB. */
export const MAX_VOICE_BYTES = 20 * 1024 * 1024;

export interface VoiceNote {
  fileId: string;
  mimeType: string;
  /** What Telegram says of its size, when it does. */
  fileSize?: number;
  durationSeconds?: number;
}

export const VOICE_NOT_SET_UP =
  'I can only read text for now: to send voice messages, set up the Assistant Transcription credential (docs/VOICE.md).';

export const NO_WORDS_HEARD = 'I could not make out any words in that voice message.';

export const voiceTooLarge = (limitMb: number) =>
  `That voice message is too long for me (over ${limitMb} MB). Please split it or type it.`;

export type VoiceText = { ok: true; text: string } | { ok: false; reply: string };

export async function voiceNoteText(
  note: VoiceNote,
  telegram: TelegramApi,
  transcription: TranscriptionSettings | undefined,
  maxBytes = MAX_VOICE_BYTES,
): Promise<VoiceText> {
  if (!transcription) return { ok: false, reply: VOICE_NOT_SET_UP };
  const limitMb = Math.round(maxBytes / 1024 / 1024);
  if (note.fileSize !== undefined && note.fileSize > maxBytes) {
    return { ok: false, reply: voiceTooLarge(limitMb) };
  }
  try {
    const file = await downloadTelegramFile(telegram, note.fileId, maxBytes);
    const extension = file.filePath.split('.').pop() ?? 'ogg';
    const text = await transcribeAudio(transcription, {
      bytes: file.bytes,
      fileName: `voice.${/^[a-z0-9]{1,5}$/i.test(extension) ? extension : 'ogg'}`,
      mimeType: note.mimeType || 'audio/ogg',
    });
    if (!text) return { ok: false, reply: NO_WORDS_HEARD };
    return { ok: true, text };
  } catch (error) {
    if (error instanceof TelegramFileError && error.reason === 'too_large') {
      return { ok: false, reply: voiceTooLarge(limitMb) };
    }
    if (error instanceof TelegramFileError || error instanceof TranscriptionError) {
      return { ok: false, reply: `Sorry, I could not transcribe that voice message: ${error.message}.` };
    }
    throw error;
  }
}
