// Each user's browser profile on disk: the cookies (session cookies included) and local storage their tasks leave, as
// Playwright's storageState, in `<dir>/<user>.json`. Only the service's user can read them: the folder is 0700, the
// files 0600. A profile is written whole (a temporary file, synced, renamed over the old one), so a crash never leaves
// half of one.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContextOptions } from 'playwright-core';

/** What a context is opened with and what it saves: `{cookies, origins}`. */
export type StorageState = Exclude<BrowserContextOptions['storageState'], string | undefined>;

/** A user id as profiles are named: a UUID, lower case. */
export const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A profile file that is not a profile (cut short by hand, edited, …); the task starts without it. */
export class ProfileUnreadableError extends Error {
  constructor(
    file: string,
    readonly why: string,
  ) {
    super(`the browser profile ${path.basename(file)} is unreadable (${why}); starting without it`);
    this.name = 'ProfileUnreadableError';
  }
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export class ProfileStore {
  private dirReady = false;

  constructor(readonly dir: string) {}

  /** The profile's path; `user` must be a lower-case UUID (it names the file). */
  file(user: string): string {
    if (!USER_ID.test(user)) throw new Error('a profile is named by a lower-case UUID');
    return path.join(this.dir, `${user}.json`);
  }

  /** The user's saved state, undefined when there is none; ProfileUnreadableError when the file is not one. */
  async load(user: string): Promise<StorageState | undefined> {
    const file = this.file(user);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // A file made wider by hand is narrowed again: it holds the user's logins.
    if (((await stat(file)).mode & 0o777) !== FILE_MODE) await chmod(file, FILE_MODE);
    let state: unknown;
    try {
      state = JSON.parse(text);
    } catch {
      throw new ProfileUnreadableError(file, 'not JSON');
    }
    if (!isStorageState(state)) throw new ProfileUnreadableError(file, 'not {cookies, origins}');
    return state;
  }

  /** Replaces the user's profile with `state`, atomically. */
  async save(user: string, state: StorageState): Promise<void> {
    const file = this.file(user);
    await this.ensureDir();
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'wx', FILE_MODE);
      try {
        await handle.writeFile(JSON.stringify(state));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  private async ensureDir(): Promise<void> {
    if (this.dirReady) return;
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    // An existing folder is narrowed too when it is ours; one the operator owns keeps its mode (the files are 0600).
    await chmod(this.dir, DIR_MODE).catch(() => undefined);
    this.dirReady = true;
  }
}

function isStorageState(value: unknown): value is StorageState {
  if (!value || typeof value !== 'object') return false;
  const { cookies, origins } = value as Record<string, unknown>;
  return Array.isArray(cookies) && Array.isArray(origins);
}
