// A voice note that arrives as audio (the webhook's `voice`, e.g. recorded in the web chat) turned into the user's
// text through the same transcription as Telegram's, with the same sentences when it cannot be, each with the
// reason a caller maps to its answer (transcription off, no words, the service failing).
import { transcribeAudio, TranscriptionError, type TranscriptionSettings } from './transcribe';
import { NO_WORDS_HEARD, VOICE_NOT_SET_UP } from './voice-note';

export interface VoiceAudio {
  /** The audio, base64. */
  data: string;
  /** Its base type, e.g. audio/webm. */
  mimeType: string;
}

export type VoiceAudioText =
  | { ok: true; text: string }
  | { ok: false; reason: 'transcription_off' | 'no_words' | 'transcription_failed'; reply: string };

const EXTENSIONS: Record<string, string> = {
  'audio/webm': 'webm',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
};

export async function voiceAudioText(
  audio: VoiceAudio,
  transcription: TranscriptionSettings | undefined,
): Promise<VoiceAudioText> {
  if (!transcription) return { ok: false, reason: 'transcription_off', reply: VOICE_NOT_SET_UP };
  try {
    const text = await transcribeAudio(transcription, {
      bytes: Buffer.from(audio.data, 'base64'),
      fileName: `voice.${EXTENSIONS[audio.mimeType] ?? 'ogg'}`,
      mimeType: audio.mimeType,
    });
    if (!text) return { ok: false, reason: 'no_words', reply: NO_WORDS_HEARD };
    return { ok: true, text };
  } catch (error) {
    if (!(error instanceof TranscriptionError)) throw error;
    return {
      ok: false,
      reason: 'transcription_failed',
      reply: `Sorry, I could not transcribe that voice message: ${error.message}.`,
    };
  }
}
