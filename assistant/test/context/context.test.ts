// The agent's context on a real Postgres 17: settings, local time, recent messages, relevant memories, prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import * as assistant from '../../src';
import { startAssistantDatabase, type TestDatabase } from '../database';
import { createUser } from '../helpers';

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

describe('context', () => {
  it('loads the context: settings, local time, recent messages, relevant memories, system prompt', async () => {
    const userId = await newUser('context');
    await assistant.updateUserSettings(pool, userId, {
      assistantName: 'Jarvis',
      timeZone: 'Europe/Vienna',
      style: 'Dry humour.',
    });
    await assistant.remember(pool, userId, {
      content: 'Stefan Huber prefers tea over coffee',
      people: ['Stefan Huber'],
    });
    await assistant.storeTurn(pool, userId, { sessionId: 'chat', userMessage: 'Hello', assistantReply: 'Hi!' });
    const context = await assistant.loadContext(pool, userId, {
      sessionId: 'chat',
      message: 'What does Stefan drink?',
      now: new Date('2026-07-01T10:00:00Z'),
    });
    expect(context.settings).toMatchObject({ assistantName: 'Jarvis', timeZone: 'Europe/Vienna' });
    expect(context.localTime).toBe('Wednesday 2026-07-01 12:00 (Europe/Vienna)');
    expect(context.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi!' },
    ]);
    expect(context.memories.map((m) => m.content)).toEqual(['Stefan Huber prefers tea over coffee']);
    expect(context.systemPrompt).toContain('You are Jarvis');
    expect(context.systemPrompt).toContain('Stefan Huber prefers tea over coffee');
  });
});
