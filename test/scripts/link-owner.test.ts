// scripts/link-owner.ts, its command line on a real Postgres 17: links, says what it merged, names bad flags.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remember, recall, resolveIdentity, updateInstanceSettings } from 'assistant-core';
import { startAssistantDatabase, type TestDatabase } from '../../assistant/test/database';

const run = promisify(execFile);
const tsx = 'node_modules/.bin/tsx';
let db: TestDatabase;

beforeAll(async () => {
  db = await startAssistantDatabase();
});
afterAll(async () => {
  await db?.stop();
});

const failure = (e: { stderr: string; code: number }) => e;

describe('scripts/link-owner.ts', () => {
  it('links the stored owner chat with the API user_id; both then see the same memories', async () => {
    await updateInstanceSettings(db.pool, { ownerTelegramChatId: '777' });
    const api = (await resolveIdentity(db.pool, 'api', 'owner')).userId;
    await remember(db.pool, api, { content: 'My accountant is Stefan Huber' });
    const { stdout } = await run(tsx, ['scripts/link-owner.ts', '--user-id', 'owner', '--url', db.server.url]);
    expect(stdout).toMatch(/^linked api:owner and telegram:777 as one user \([0-9a-f-]{36}\)/);
    const telegram = (await resolveIdentity(db.pool, 'telegram', '777')).userId;
    expect((await resolveIdentity(db.pool, 'api', 'owner')).userId).toBe(telegram);
    expect((await recall(db.pool, telegram, 'accountant')).map((m) => m.content)).toEqual([
      'My accountant is Stefan Huber',
    ]);
  });

  it('names a missing flag or value, and a bad chat id, without a stack trace', async () => {
    const noUser = await run(tsx, ['scripts/link-owner.ts', '--url', db.server.url]).catch(failure);
    expect(noUser).toMatchObject({ code: 1 });
    expect((noUser as { stderr: string }).stderr.trim()).toMatch(/^link-owner: --user-id: .* is required$/);
    const badChat = await run(tsx, [
      'scripts/link-owner.ts',
      '--user-id',
      'me',
      '--chat-id',
      'abc',
      '--url',
      db.server.url,
    ]).catch(failure);
    expect((badChat as { stderr: string }).stderr.trim()).toBe(
      'link-owner: externalId: a Telegram chat id must be an integer',
    );
  });
});
