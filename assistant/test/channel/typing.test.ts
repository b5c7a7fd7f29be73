// "typing…" while a turn runs: the loop on a fake clock (sends at 0, 4 s, 8 s …; stops when the turn ends, at the
// deadline, or when its state cannot be read; a failed send neither stops it nor throws), sendChatAction against the
// Telegram fake, and whether a turn still runs, on a real Postgres 17.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { startTelegramBotApiFake, type TelegramBotApiFake } from '../../../test/fakes/telegram-bot-api';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

/** A clock that only moves when the loop sleeps; `sendsAt` records when each send happened. */
function fakeClock(start = 1_000_000) {
  let time = start;
  return {
    now: () => time,
    sleep: async (ms: number) => {
      time += ms;
    },
    advance: (ms: number) => {
      time += ms;
    },
    elapsed: () => time - start,
    start,
  };
}

describe('keepTyping', () => {
  it('sends at once and then every 4 s while the turn runs, and stops when it ends', async () => {
    const clock = fakeClock();
    const sendsAt: number[] = [];
    const outcome = await assistant.keepTyping({
      send: async () => void sendsAt.push(clock.elapsed()),
      isRunning: async () => clock.elapsed() < 10_000,
      until: new Date(clock.start + 60_000),
      now: clock.now,
      sleep: clock.sleep,
    });
    expect(assistant.TYPING_EVERY_MS).toBe(4000);
    expect(sendsAt).toEqual([0, 4000, 8000]);
    expect(outcome).toEqual({ sent: 3, failed: 0, stopped: 'finished' });
    expect(clock.elapsed()).toBe(12_000);
  });

  it('stops at the deadline though the turn still runs, without sleeping past it', async () => {
    const clock = fakeClock();
    const sendsAt: number[] = [];
    const outcome = await assistant.keepTyping({
      send: async () => void sendsAt.push(clock.elapsed()),
      isRunning: async () => true,
      until: new Date(clock.start + 10_000),
      now: clock.now,
      sleep: clock.sleep,
    });
    expect(sendsAt).toEqual([0, 4000, 8000]);
    expect(outcome).toEqual({ sent: 3, failed: 0, stopped: 'deadline' });
    expect(clock.elapsed()).toBe(10_000);
  });

  it('keeps its rhythm when a send is slow (counted from the start)', async () => {
    const clock = fakeClock();
    const sendsAt: number[] = [];
    await assistant.keepTyping({
      send: async () => {
        sendsAt.push(clock.elapsed());
        clock.advance(1500);
      },
      isRunning: async () => true,
      until: new Date(clock.start + 12_000),
      now: clock.now,
      sleep: clock.sleep,
    });
    expect(sendsAt).toEqual([0, 4000, 8000]);
  });

  it('a failed send is reported, neither stops the loop nor throws', async () => {
    const clock = fakeClock();
    const errors: unknown[] = [];
    let calls = 0;
    const outcome = await assistant.keepTyping({
      send: async () => {
        calls++;
        if (calls === 1) throw new Error('Telegram answered HTTP 502');
      },
      isRunning: async () => clock.elapsed() < 8000,
      until: new Date(clock.start + 60_000),
      now: clock.now,
      sleep: clock.sleep,
      onError: (error) => errors.push(error),
    });
    expect(outcome).toEqual({ sent: 1, failed: 1, stopped: 'finished' });
    expect(errors.map((error) => (error as Error).message)).toEqual(['Telegram answered HTTP 502']);
  });

  it('stops when the turn cannot be read, and sends nothing for a turn already over or a deadline passed', async () => {
    const clock = fakeClock();
    let sends = 0;
    const send = async () => void sends++;
    const base = { send, now: clock.now, sleep: clock.sleep, until: new Date(clock.start + 60_000) };
    const unreadable = await assistant.keepTyping({
      ...base,
      isRunning: async () => {
        throw new Error('database unreachable');
      },
      onError: () => undefined,
    });
    expect(unreadable).toEqual({ sent: 0, failed: 0, stopped: 'unknown' });
    expect(await assistant.keepTyping({ ...base, isRunning: async () => false })).toMatchObject({
      stopped: 'finished',
    });
    const late = { ...base, until: new Date(clock.start - 1), isRunning: async () => true };
    expect(await assistant.keepTyping(late)).toMatchObject({ stopped: 'deadline' });
    expect(sends).toBe(0);
  });
});

describe('sendChatAction', () => {
  const TOKEN = '7000000020:typing-token';
  let telegram: TelegramBotApiFake;
  beforeAll(async () => {
    telegram = await startTelegramBotApiFake({ token: TOKEN });
  });
  afterAll(async () => telegram?.close());

  it("sends the action to the chat, and rejects with Telegram's answer (never the token)", async () => {
    await assistant.sendChatAction({ baseUrl: `${telegram.url}/`, token: TOKEN }, '4242');
    const actions = await (await fetch(`${telegram.url}/__actions?chat_id=4242`)).json();
    expect(actions).toEqual([{ chat_id: '4242', action: 'typing', at: expect.any(String) }]);
    const wrong = await assistant.sendChatAction({ baseUrl: telegram.url, token: 'bad:token' }, '4242').catch((e) => e);
    expect((wrong as Error).message).toBe('sendChatAction: Telegram answered HTTP 401: Unauthorized');
    const unknown = await assistant
      .sendChatAction({ baseUrl: telegram.url, token: TOKEN }, '4242', 'dancing')
      .catch((e) => e);
    expect((unknown as Error).message).toMatch(/HTTP 400: Bad Request: wrong parameter action/);
    const unreachable = await assistant
      .sendChatAction({ baseUrl: 'http://127.0.0.1:9', token: TOKEN }, '4242')
      .catch((e) => e);
    expect((unreachable as Error).message).toMatch(/^sendChatAction: Telegram could not be reached/);
    expect(String((unreachable as Error).message)).not.toContain(TOKEN);
  });
});

describe('isTurnRunning', () => {
  const db = useAssistantDatabase();

  it('is true while the turn is pending without a question, false once answered or failed', async () => {
    const userId = await createUser(db.pool, 'typing');
    const first = await assistant.receiveMessage(db.pool, userId, { message: 'slow one' });
    expect(await assistant.isTurnRunning(db.pool, userId, first.turnId)).toBe(true);
    await assistant.askUser(db.pool, userId, { kind: 'question', question: 'Which one?', turnId: first.turnId });
    expect(await assistant.isTurnRunning(db.pool, userId, first.turnId)).toBe(false);
    await assistant.finishTurn(db.pool, userId, first.turnId, 'Done.');
    expect(await assistant.isTurnRunning(db.pool, userId, first.turnId)).toBe(false);
    const second = await assistant.receiveMessage(db.pool, userId, { message: 'fails' });
    await assistant.failTurn(db.pool, userId, second.turnId, 'model timed out');
    expect(await assistant.isTurnRunning(db.pool, userId, second.turnId)).toBe(false);
  });
});
