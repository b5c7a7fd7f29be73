// Real speech for voice-note tests: espeak-ng says the text, opusenc makes it an OGG/Opus file, as a Telegram voice
// note is (scripts/install-test-tools.sh installs both from Debian).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** espeak-ng saying `text` into the WAV file `wav` (e.g. for Chromium's fake microphone). */
export function speakToWav(text: string, wav: string): void {
  try {
    execFileSync('espeak-ng', ['-w', wav, text], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(`speech needs espeak-ng (apt-get install espeak-ng): ${(error as Error).message}`);
  }
}

export function speak(text: string): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'speech-'));
  try {
    const wav = path.join(dir, 'speech.wav');
    const ogg = path.join(dir, 'speech.ogg');
    try {
      speakToWav(text, wav);
      execFileSync('opusenc', ['--quiet', wav, ogg], { stdio: 'ignore' });
    } catch (error) {
      throw new Error(
        `making a voice note needs espeak-ng and opusenc (apt-get install espeak-ng opus-tools): ${(error as Error).message}`,
      );
    }
    return readFileSync(ogg);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the bytes are an OGG stream carrying Opus (what Telegram voice notes are). */
export function isOggOpus(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).toString('latin1') === 'OggS' && bytes.subarray(0, 200).includes('OpusHead');
}
