// The caps' clock in test mode: now plus the seconds a file holds (no file or an empty one: now), read at each call,
// so an end-to-end test can move a budget window on without restarting the gateway. Never used outside tests.
import { readFileSync } from 'node:fs';

export function fileOffsetClock(file: string): () => Date {
  return () => {
    let text = '';
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const seconds = text === '' ? 0 : Number(text);
    if (!Number.isFinite(seconds))
      throw new Error(`the test clock file ${file} holds "${text}", not a number of seconds`);
    return new Date(Date.now() + seconds * 1000);
  };
}
