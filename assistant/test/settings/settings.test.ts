// Settings on a real Postgres 17: user overrides over instance defaults (the locale too), the owner's chat, the chat
// model name, the urgent nudges' interval.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('settings', () => {
  it('layers user overrides over instance defaults, and validates language and time zone', async () => {
    const userId = await newUser('settings');
    expect(await assistant.getUserSettings(db.pool, userId)).toMatchObject({
      assistantName: 'Assistant',
      language: 'english',
      timeZone: 'UTC',
    });
    const updated = await assistant.updateUserSettings(db.pool, userId, {
      assistantName: 'Ada',
      language: 'German',
      timeZone: 'Europe/Vienna',
    });
    expect(updated).toMatchObject({ assistantName: 'Ada', language: 'german', timeZone: 'Europe/Vienna' });
    await expectFieldError(() => assistant.updateUserSettings(db.pool, userId, { language: 'klingon' }), 'language');
    await expectFieldError(
      () => assistant.updateUserSettings(db.pool, userId, { timeZone: 'Mars/Olympus_Mons' }),
      'timeZone',
    );
    expect((await assistant.getUserSettings(db.pool, userId)).language).toBe('german');
  });

  it('layers a user locale over the instance one (default en), canonicalised; a bad one names the field', async () => {
    const userId = await newUser('locale');
    expect((await assistant.getInstanceSettings(db.pool)).locale).toBe('en');
    expect((await assistant.getUserSettings(db.pool, userId)).locale).toBe('en');
    await assistant.updateInstanceSettings(db.pool, { locale: 'fr' });
    expect((await assistant.getUserSettings(db.pool, userId)).locale).toBe('fr');
    expect((await assistant.updateUserSettings(db.pool, userId, { locale: 'de-at' })).locale).toBe('de-AT');
    expect((await assistant.getUserPreferences(db.pool, userId)).locale).toBe('de-AT');
    await expectFieldError(() => assistant.updateUserSettings(db.pool, userId, { locale: 'German' }), 'locale');
    await expectFieldError(() => assistant.updateInstanceSettings(db.pool, { locale: 'x' }), 'locale');
    // Japanese has no text-search configuration, and is a locale all the same.
    expect((await assistant.updateInstanceSettings(db.pool, { locale: 'ja' })).locale).toBe('ja');
    expect((await assistant.getUserSettings(db.pool, userId)).language).toBe('english');
    await expect(db.pool.query("UPDATE assistant.instance_settings SET locale = 'not a locale'")).rejects.toThrow(
      /check constraint/,
    );
    await assistant.updateInstanceSettings(db.pool, { locale: 'en' });
  });

  it('stores the idle minutes before memory capture (default 5, 0: off, at most a day); a bad value names it', async () => {
    expect((await assistant.getInstanceSettings(db.pool)).captureIdleMinutes).toBe(5);
    expect((await assistant.updateInstanceSettings(db.pool, { captureIdleMinutes: '0' })).captureIdleMinutes).toBe(0);
    for (const bad of [-1, 1441, 2.5, 'soon'])
      await expectFieldError(
        () => assistant.updateInstanceSettings(db.pool, { captureIdleMinutes: bad }),
        'captureIdleMinutes',
      );
    expect((await assistant.updateInstanceSettings(db.pool, { captureIdleMinutes: 1440 })).captureIdleMinutes).toBe(
      1440,
    );
    await assistant.updateInstanceSettings(db.pool, { captureIdleMinutes: 5 });
  });

  it('stores the memory budget of the nightly consolidation (default 2,000, 0: off); a bad value names it', async () => {
    expect((await assistant.getInstanceSettings(db.pool)).memoryBudget).toBe(2000);
    expect((await assistant.updateInstanceSettings(db.pool, { memoryBudget: '0' })).memoryBudget).toBe(0);
    for (const bad of [-1, 1_000_001, 2.5, 'many'])
      await expectFieldError(() => assistant.updateInstanceSettings(db.pool, { memoryBudget: bad }), 'memoryBudget');
    expect((await assistant.updateInstanceSettings(db.pool, { memoryBudget: 50 })).memoryBudget).toBe(50);
    await assistant.updateInstanceSettings(db.pool, { memoryBudget: 2000 });
  });

  it('stores how often urgent tasks without a due date are nudged (default 24 h, 0: never)', async () => {
    expect((await assistant.getInstanceSettings(db.pool)).urgentNudgeHours).toBe(24);
    expect((await assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: '0' })).urgentNudgeHours).toBe(0);
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: 721 }),
      'urgentNudgeHours',
    );
    await assistant.updateInstanceSettings(db.pool, { urgentNudgeHours: 24 });
  });

  it("stores the owner's Telegram chat id; only that chat is the owner", async () => {
    expect(await assistant.isTelegramOwner(db.pool, '5550001')).toBe(false);
    await assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: '5550001' });
    expect(await assistant.isTelegramOwner(db.pool, 5550001)).toBe(true);
    expect(await assistant.isTelegramOwner(db.pool, '5550002')).toBe(false);
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: 'me' }),
      'ownerTelegramChatId',
    );
    await expectFieldError(() => assistant.isTelegramOwner(db.pool, '1; DROP TABLE x'), 'chatId');
  });

  it('stores the chat model name (default gpt-4o-mini) and hands it to the context', async () => {
    expect((await assistant.getInstanceSettings(db.pool)).chatModel).toBe('gpt-4o-mini');
    await assistant.updateInstanceSettings(db.pool, { chatModel: ' qwen2.5:7b-instruct ' });
    expect((await assistant.getInstanceSettings(db.pool)).chatModel).toBe('qwen2.5:7b-instruct');
    const userId = await newUser('chat-model');
    // The context names the turn's caller for the model gateway (docs/MODELS.md): the agent, for this user.
    expect((await assistant.loadContext(db.pool, userId, {})).chatModel).toBe(
      `qwen2.5:7b-instruct#job=agent&user=${userId}`,
    );
    expect(await assistant.getUserSettings(db.pool, userId)).not.toHaveProperty('chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(db.pool, { chatModel: 'gpt 4o' }), 'chatModel');
    await expectFieldError(() => assistant.updateInstanceSettings(db.pool, { chatModel: 42 }), 'chatModel');
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { chatModel: 'x'.repeat(201) }),
      'chatModel',
    );
    // The column refuses what the check refuses, even when written directly.
    await expect(db.pool.query("UPDATE assistant.instance_settings SET chat_model = 'a b'")).rejects.toThrow(
      /check constraint/,
    );
    await assistant.updateInstanceSettings(db.pool, { chatModel: 'gpt-4o-mini' });
  });

  it("stores the search engine (null: the environment's), and 'default' sets it back", async () => {
    expect(await assistant.getInstanceSettings(db.pool)).toMatchObject({ searchBackend: null, searxngUrl: null });
    await assistant.updateInstanceSettings(db.pool, { searchBackend: 'SearXNG', searxngUrl: 'http://searxng:8080' });
    expect(await assistant.getInstanceSettings(db.pool)).toMatchObject({
      searchBackend: 'searxng',
      searxngUrl: 'http://searxng:8080/',
    });
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { searchBackend: 'google' }),
      'searchBackend',
    );
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { searxngUrl: 'searxng:8080' }),
      'searxngUrl',
    );
    await expectFieldError(() => assistant.updateInstanceSettings(db.pool, { searxngUrl: 'ftp://x' }), 'searxngUrl');
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { searxngUrl: 'http://u:p@searxng:8080' }),
      'searxngUrl',
    );
    await assistant.updateInstanceSettings(db.pool, { searchBackend: 'default', searxngUrl: 'default' });
    expect(await assistant.getInstanceSettings(db.pool)).toMatchObject({ searchBackend: null, searxngUrl: null });
  });

  it('times the model: a call timeout and a reply deadline with defaults a model on a CPU meets, checked values', async () => {
    expect(await assistant.getInstanceSettings(db.pool)).toMatchObject({
      modelTimeoutSeconds: 300,
      replyDeadlineSeconds: 600,
    });
    expect(assistant.MAX_MODEL_TIMEOUT_SECONDS).toBe(600);
    expect(assistant.MAX_REPLY_DEADLINE_SECONDS).toBe(900);
    const set = await assistant.updateInstanceSettings(db.pool, {
      modelTimeoutSeconds: ' 450 ',
      replyDeadlineSeconds: 900,
    });
    expect(set).toMatchObject({ modelTimeoutSeconds: 450, replyDeadlineSeconds: 900 });
    for (const bad of [9, 601, 2.5, '5m', -300]) {
      await expectFieldError(
        () => assistant.updateInstanceSettings(db.pool, { modelTimeoutSeconds: bad }),
        'modelTimeoutSeconds',
      );
    }
    for (const bad of [0, 901, 'soon']) {
      await expectFieldError(
        () => assistant.updateInstanceSettings(db.pool, { replyDeadlineSeconds: bad }),
        'replyDeadlineSeconds',
      );
    }
    // Nothing bad was stored, and an empty value leaves the setting as it is.
    expect(await assistant.updateInstanceSettings(db.pool, { modelTimeoutSeconds: '' })).toMatchObject({
      modelTimeoutSeconds: 450,
      replyDeadlineSeconds: 900,
    });
    await expect(db.pool.query('UPDATE assistant.instance_settings SET model_timeout_seconds = 5')).rejects.toThrow(
      /check constraint/,
    );
    await assistant.updateInstanceSettings(db.pool, { modelTimeoutSeconds: 300, replyDeadlineSeconds: 600 });
  });
});
