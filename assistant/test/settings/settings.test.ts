// Settings on a real Postgres 17: user overrides over instance defaults, the owner's chat, the chat model name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import * as assistant from '../../src';
import { startAssistantDatabase, type TestDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await startAssistantDatabase();
  pool = db.pool;
});
afterAll(async () => {
  await db?.stop();
});

const newUser = (name: string) => createUser(pool, name);

describe('settings', () => {
  it('layers user overrides over instance defaults, and validates language and time zone', async () => {
    const userId = await newUser('settings');
    expect(await assistant.getUserSettings(pool, userId)).toMatchObject({
      assistantName: 'Assistant',
      language: 'english',
      timeZone: 'UTC',
    });
    const updated = await assistant.updateUserSettings(pool, userId, {
      assistantName: 'Ada',
      language: 'German',
      timeZone: 'Europe/Vienna',
    });
    expect(updated).toMatchObject({ assistantName: 'Ada', language: 'german', timeZone: 'Europe/Vienna' });
    await expectFieldError(() => assistant.updateUserSettings(pool, userId, { language: 'klingon' }), 'language');
    await expectFieldError(
      () => assistant.updateUserSettings(pool, userId, { timeZone: 'Mars/Olympus_Mons' }),
      'timeZone',
    );
    expect((await assistant.getUserSettings(pool, userId)).language).toBe('german');
  });

  it("stores the owner's Telegram chat id; only that chat is the owner", async () => {
    expect(await assistant.isTelegramOwner(pool, '5550001')).toBe(false);
    await assistant.updateInstanceSettings(pool, { ownerTelegramChatId: '5550001' });
    expect(await assistant.isTelegramOwner(pool, 5550001)).toBe(true);
    expect(await assistant.isTelegramOwner(pool, '5550002')).toBe(false);
    await expectFieldError(
      () => assistant.updateInstanceSettings(pool, { ownerTelegramChatId: 'me' }),
      'ownerTelegramChatId',
    );
    await expectFieldError(() => assistant.isTelegramOwner(pool, '1; DROP TABLE x'), 'chatId');
  });

  it('stores the chat model name (default gpt-4o-mini) and hands it to the context', async () => {
    expect((await assistant.getInstanceSettings(pool)).chatModel).toBe('gpt-4o-mini');
    await assistant.updateInstanceSettings(pool, { chatModel: ' qwen2.5:7b-instruct ' });
    expect((await assistant.getInstanceSettings(pool)).chatModel).toBe('qwen2.5:7b-instruct');
    const userId = await newUser('chat-model');
    expect((await assistant.loadContext(pool, userId, {})).chatModel).toBe('qwen2.5:7b-instruct');
    expect(await assistant.getUserSettings(pool, userId)).not.toHaveProperty('chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 'gpt 4o' }), 'chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 42 }), 'chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { chatModel: 'x'.repeat(201) }), 'chatModel');
    // The column refuses what the check refuses, even when written directly.
    await expect(pool.query("UPDATE assistant.instance_settings SET chat_model = 'a b'")).rejects.toThrow(
      /check constraint/,
    );
    await assistant.updateInstanceSettings(pool, { chatModel: 'gpt-4o-mini' });
  });

  it("stores the search engine (null: the environment's), and 'default' sets it back", async () => {
    expect(await assistant.getInstanceSettings(pool)).toMatchObject({ searchBackend: null, searxngUrl: null });
    await assistant.updateInstanceSettings(pool, { searchBackend: 'SearXNG', searxngUrl: 'http://searxng:8080' });
    expect(await assistant.getInstanceSettings(pool)).toMatchObject({
      searchBackend: 'searxng',
      searxngUrl: 'http://searxng:8080/',
    });
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { searchBackend: 'google' }), 'searchBackend');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { searxngUrl: 'searxng:8080' }), 'searxngUrl');
    await expectFieldError(() => assistant.updateInstanceSettings(pool, { searxngUrl: 'ftp://x' }), 'searxngUrl');
    await expectFieldError(
      () => assistant.updateInstanceSettings(pool, { searxngUrl: 'http://u:p@searxng:8080' }),
      'searxngUrl',
    );
    await assistant.updateInstanceSettings(pool, { searchBackend: 'default', searxngUrl: 'default' });
    expect(await assistant.getInstanceSettings(pool)).toMatchObject({ searchBackend: null, searxngUrl: null });
  });
});
