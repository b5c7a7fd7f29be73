// Users' browser profiles on disk: written whole, 0600 in a 0700 folder, read back; a file that is not a profile is
// reported (and the task starts without it); names are lower-case UUIDs only.
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ProfileStore, ProfileUnreadableError, type StorageState } from '../../src/browser/profiles';

const STATE: StorageState = {
  cookies: [
    {
      name: 'sid',
      value: 'abc',
      domain: 'bank.example',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
  ],
  origins: [{ origin: 'https://bank.example', localStorage: [{ name: 'visited', value: 'yes' }] }],
};

let root: string;
let store: ProfileStore;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'assistant-profile-store-'));
  store = new ProfileStore(path.join(root, 'profiles'));
});
afterEach(async () => await rm(root, { recursive: true, force: true }));

describe('ProfileStore', () => {
  it('saves a profile 0600 in a 0700 folder it makes, and reads it back', async () => {
    const user = randomUUID();
    await store.save(user, STATE);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(store.file(user))).mode & 0o777).toBe(0o600);
    expect(await store.load(user)).toEqual(STATE);
    expect(await readdir(store.dir)).toEqual([`${user}.json`]); // no temporary file left
  });

  it('replaces a profile whole, and has none for a user who never saved', async () => {
    const user = randomUUID();
    await store.save(user, STATE);
    await store.save(user, { cookies: [], origins: [] });
    expect(await store.load(user)).toEqual({ cookies: [], origins: [] });
    expect(await store.load(randomUUID())).toBeUndefined();
  });

  it('narrows a profile made readable by others when it reads it', async () => {
    const user = randomUUID();
    await store.save(user, STATE);
    await chmod(store.file(user), 0o644);
    await store.load(user);
    expect((await stat(store.file(user))).mode & 0o777).toBe(0o600);
  });

  it('reports a file that is not a profile', async () => {
    const user = randomUUID();
    await store.save(user, STATE);
    for (const [text, why] of [
      ['{"cookies": [', 'not JSON'],
      ['{"cookies": []}', 'not {cookies, origins}'],
    ]) {
      await writeFile(store.file(user), text);
      const error = await store.load(user).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProfileUnreadableError);
      expect((error as Error).message).toBe(
        `the browser profile ${user}.json is unreadable (${why}); starting without it`,
      );
    }
  });

  it('names files by lower-case UUIDs only', () => {
    for (const user of ['../escape', 'ADA', randomUUID().toUpperCase(), '']) {
      expect(() => store.file(user)).toThrow('a profile is named by a lower-case UUID');
    }
  });
});
