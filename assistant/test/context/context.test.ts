// The agent's context on a real Postgres 17: settings, local time, recent messages, relevant memories, prompt.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('context', () => {
  it('loads the context: settings, local time, recent messages, relevant memories, system prompt', async () => {
    const userId = await newUser('context');
    await assistant.updateUserSettings(db.pool, userId, {
      assistantName: 'Jarvis',
      timeZone: 'Europe/Vienna',
      style: 'Dry humour.',
    });
    await assistant.remember(db.pool, userId, {
      content: 'Stefan Huber prefers tea over coffee',
      people: ['Stefan Huber'],
    });
    await assistant.storeTurn(db.pool, userId, { sessionId: 'chat', userMessage: 'Hello', assistantReply: 'Hi!' });
    const context = await assistant.loadContext(db.pool, userId, {
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
    expect(context.systemPrompt).not.toContain('Stefan');
    expect(context.contextBlock).toContain('Stefan Huber prefers tea over coffee');
    expect(context.contextBlock).toContain("The user's local time is Wednesday 2026-07-01 12:00 (Europe/Vienna).");
    expect(context.userPrompt).toBe(`${context.contextBlock}\n\nWhat does Stefan drink?`);
  });

  it('keeps the system prompt the same across turns, hours and users of the same settings', async () => {
    const settings = { assistantName: 'Jarvis', timeZone: 'Europe/Vienna', style: 'Dry humour.', language: 'german' };
    const [anna, ben] = [await newUser('prefix-anna'), await newUser('prefix-ben')];
    for (const userId of [anna, ben]) await assistant.updateUserSettings(db.pool, userId, settings);
    await assistant.remember(db.pool, anna, { content: 'Anna keeps bees', people: ['Anna'] });
    const turn = (userId: string, message: string, now: string) =>
      assistant.loadContext(db.pool, userId, { sessionId: 'chat', message, now: new Date(now) });
    const first = await turn(anna, 'Tell me about my bees', '2026-07-01T10:00:00Z');
    const hourLater = await turn(anna, 'And the honey?', '2026-07-01T11:00:00Z');
    const nextDay = await turn(ben, 'Good morning', '2026-07-02T06:00:00Z');
    expect(hourLater.systemPrompt).toBe(first.systemPrompt);
    expect(nextDay.systemPrompt).toBe(first.systemPrompt);
    expect(first.contextBlock).toContain('Anna keeps bees');
    expect(hourLater.contextBlock).not.toBe(first.contextBlock);
  });

  it("gives the run's deadline: now plus the runLimitSeconds setting (default the agent's own 1,800 s)", async () => {
    const userId = await newUser('deadline');
    const now = new Date('2026-07-01T10:00:00Z');
    const load = () => assistant.loadContext(db.pool, userId, { sessionId: 'chat', message: 'Hi', now });
    expect((await load()).deadline).toBe('2026-07-01T10:30:00.000Z');
    await assistant.updateInstanceSettings(db.pool, { runLimitSeconds: 90 });
    try {
      expect((await load()).deadline).toBe('2026-07-01T10:01:30.000Z');
      for (const bad of [9, 1801, 'soon']) {
        await expect(assistant.updateInstanceSettings(db.pool, { runLimitSeconds: bad })).rejects.toThrow(
          'runLimitSeconds: must be an integer from 10 to 1800',
        );
      }
    } finally {
      await assistant.updateInstanceSettings(db.pool, { runLimitSeconds: 1800 });
    }
  });
});
