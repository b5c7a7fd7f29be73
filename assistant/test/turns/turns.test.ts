// Conversation turns on a real Postgres 17: stored verbatim, loaded back within a token budget, bad input named.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('conversation turns', () => {
  it('stores messages verbatim: quotes, $1, emoji, SQL, 100 kB', async () => {
    const userId = await newUser('verbatim');
    const tricky = `He said "it's fine" — costs $1 (or $2.50)… 😀🇦🇹 \\n'; DROP TABLE assistant.turns; --\n\ttab`;
    const big = 'x'.repeat(50_000) + '🙂'.repeat(12_500) + 'end';
    expect(Buffer.byteLength(big)).toBeGreaterThanOrEqual(100_000);
    await assistant.storeTurn(db.pool, userId, {
      sessionId: 's1',
      userMessage: tricky,
      assistantReply: big,
      metadata: { note: '$1 "q"' },
    });
    const rows = await db.pool.query(
      'SELECT role, content, metadata FROM assistant.turns WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    expect(rows.rows.map((r) => r.content)).toEqual([tricky, big]);
    expect(rows.rows[0].metadata).toEqual({ note: '$1 "q"' });
    const messages = await assistant.recentMessages(db.pool, userId, 's1', 1_000_000);
    expect(messages).toEqual([
      { role: 'user', content: tricky },
      { role: 'assistant', content: big },
    ]);
  });

  it('loads the newest turns of the session that fit the token budget, oldest first', async () => {
    const userId = await newUser('budget');
    for (let i = 1; i <= 5; i++) {
      await assistant.storeTurn(db.pool, userId, {
        sessionId: 'a',
        userMessage: `question ${i} ${'w'.repeat(36)}`,
        assistantReply: `answer ${i} ${'w'.repeat(38)}`,
      });
    }
    await assistant.storeTurn(db.pool, userId, { sessionId: 'b', userMessage: 'other session' });
    const perMessage = assistant.estimateTokens(`question 1 ${'w'.repeat(36)}`);
    const recent = await assistant.recentMessages(db.pool, userId, 'a', perMessage * 4);
    expect(recent.map((m) => m.content.split(' ').slice(0, 2).join(' '))).toEqual([
      'question 4',
      'answer 4',
      'question 5',
      'answer 5',
    ]);
    expect(await assistant.recentMessages(db.pool, userId, 'a', 0)).toEqual([]);
    expect((await assistant.recentMessages(db.pool, userId, 'b')).map((m) => m.content)).toEqual(['other session']);
    const stranger = await newUser('stranger');
    expect(await assistant.recentMessages(db.pool, stranger, 'a')).toEqual([]);
  });

  it('drops history in whole blocks: between drops each window is the last one plus what was said since', async () => {
    const userId = await newUser('blocks');
    const perMessage = assistant.estimateTokens(`question 10 ${'w'.repeat(36)}`);
    const budget = perMessage * 8;
    const windows: string[][] = [];
    for (let i = 1; i <= 15; i++) {
      await assistant.storeTurn(db.pool, userId, {
        sessionId: 'long',
        userMessage: `question ${String(i).padStart(2, '0')} ${'w'.repeat(36)}`,
        assistantReply: `answer   ${String(i).padStart(2, '0')} ${'w'.repeat(36)}`,
      });
      windows.push(
        (await assistant.recentMessages(db.pool, userId, 'long', budget)).map((m) => m.content.slice(0, 11)),
      );
    }
    let drops = 0;
    for (let n = 1; n < windows.length; n++) {
      const [previous, current] = [windows[n - 1], windows[n]];
      expect(current.length * perMessage).toBeLessThanOrEqual(budget);
      expect(current.at(-1)).toBe(`answer   ${String(n + 1).padStart(2, '0')}`);
      if (current[0] === previous[0]) expect(current.slice(0, previous.length)).toEqual(previous);
      else drops++;
    }
    // A sliding window moves on at every turn once full (11 times from the 5th turn); starting only at blocks of half
    // the budget (4 messages here) or of 10 messages, it moves on 7 times, and never by less than a turn.
    expect(drops).toBe(7);
    expect(windows.at(-1)).toEqual([
      'question 13',
      'answer   13',
      'question 14',
      'answer   14',
      'question 15',
      'answer   15',
    ]);
  });

  it('keeps at most 20 messages, moving on 10 at a time', async () => {
    const userId = await newUser('many');
    const starts: string[] = [];
    for (let i = 1; i <= 20; i++) {
      await assistant.storeTurn(db.pool, userId, { sessionId: 'short', userMessage: `q${i}`, assistantReply: `a${i}` });
      const window = await assistant.recentMessages(db.pool, userId, 'short', 100_000);
      expect(window.length).toBeLessThanOrEqual(assistant.HISTORY_MAX_MESSAGES);
      starts.push(window[0].content);
    }
    expect([...new Set(starts)]).toEqual(['q1', 'q6', 'q11']);
  });

  it('rejects bad turns, naming the field', async () => {
    const userId = await newUser('bad-turns');
    await expectFieldError(() => assistant.storeTurn(db.pool, userId, { userMessage: '' }), 'userMessage');
    await expectFieldError(
      () => assistant.storeTurn(db.pool, userId, { userMessage: 'hi', sessionId: 'x'.repeat(201) }),
      'sessionId',
    );
    await expectFieldError(
      () => assistant.storeTurn(db.pool, userId, { userMessage: 'hi', metadata: [1] }),
      'metadata',
    );
    await expectFieldError(() => assistant.loadContext(db.pool, userId, { tokenBudget: -1 }), 'tokenBudget');
  });
});
