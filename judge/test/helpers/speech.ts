// Speech for Chromium's fake microphone (the judge's workspace cannot import the repo's test/fakes: its rootDir).
import { execFileSync } from 'node:child_process';

/** Writes espeak-ng's reading of `text` to `wav`. */
export function speakToWav(text: string, wav: string): void {
  try {
    execFileSync('espeak-ng', ['-w', wav, text], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(
      `the fake microphone's speech needs espeak-ng (apt-get install espeak-ng): ${(error as Error).message}`,
    );
  }
}
