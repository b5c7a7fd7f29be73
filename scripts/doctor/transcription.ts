// Transcription, when configured (ASSISTANT_TRANSCRIPTION_BASE_URL): one tiny real call through the gateway with half
// a second of silence as a WAV file (16 kHz, 16-bit mono PCM, a format OpenAI's endpoint takes). Silence has no
// words: an answer with a `text` field (empty or not) is a working transcription.
import { withCaller } from '../../assistant/src/gateway/caller';
import { DOCTOR_CALLER } from './chat';
import type { OptionalCheck } from './embeddings';
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

/** A RIFF/WAVE file of `samples` zero samples. */
export function silentWav(samples = 8000, rate = 16_000): Buffer {
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28); // bytes a second
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits a sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(data, 40);
  return wav;
}

export async function checkTranscription(settings: DoctorSettings, timeoutMs: number): Promise<OptionalCheck> {
  if (!settings.transcriptionModel) return { configured: false, works: false, detail: 'not configured' };
  const form = new FormData();
  form.set('file', new Blob([silentWav()], { type: 'audio/wav' }), 'doctor.wav');
  form.set('model', withCaller(settings.transcriptionModel, DOCTOR_CALLER));
  try {
    const { body } = await probe<{ text?: unknown }>({
      url: `${settings.gatewayUrl}/transcription/v1/audio/transcriptions`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      form,
      timeoutMs,
    });
    if (typeof body.text !== 'string') return { configured: true, works: false, detail: 'the answer carries no text' };
    return { configured: true, works: true, detail: settings.transcriptionModel };
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    return { configured: true, works: false, detail: error.message };
  }
}
