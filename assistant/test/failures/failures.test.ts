// Failure awareness on a real Postgres 17: failures stored with secrets scrubbed and listed in plain words; failed
// deliveries and action runs recorded; an outage found from the tick ledger; the owner's report rate-limited; a
// streak of the same failure is one row; failed turns and skipped runs are named.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

describe('failures', () => {
  it('stores a failure with secrets scrubbed and lists it in plain words', async () => {
    const at = new Date('2040-01-01T09:30:00Z');
    await assistant.recordFailure(
      db.pool,
      {
        source: 'workflow',
        workflow: 'Assistant: run a turn',
        node: 'Chat Model',
        message:
          'POST https://api.telegram.org/bot123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/sendMessage: 401 Bearer sk-abcdefghijklmnop',
        executionId: '77',
      },
      at,
    );
    const list = await assistant.listFailures(db.pool, {
      since: '2040-01-01T00:00:00Z',
      timeZone: 'Europe/Vienna',
      now: new Date('2040-01-01T12:00:00Z'),
    });
    expect(list.count).toBe(1);
    expect(list.summary).toContain('2040-01-01 10:30: workflow "Assistant: run a turn", node "Chat Model": POST');
    expect(list.summary).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(list.summary).not.toContain('abcdefghijklmnop');
    const none = await assistant.listFailures(db.pool, { since: '2041-01-01T00:00:00Z', timeZone: 'UTC' });
    expect(none.summary).toBe('Nothing failed since Tue 2041-01-01 00:00 UTC.');
    await expect(assistant.listFailures(db.pool, { since: 'last week', timeZone: 'UTC' })).rejects.toThrow(/^since: /);
  });

  it('a delivery that ends failed, and a failed action run, are failures of their user', async () => {
    const userId = await createUser(db.pool, 'fail');
    await assistant.setCallbackUrl(db.pool, userId, 'https://example.com/hook');
    const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'x' });
    const [claimed] = (await assistant.claimDueMessages(db.pool, new Date())).filter((m) => m.id === message.id);
    await assistant.recordSendOutcome(
      db.pool,
      claimed,
      { status: 'retry', error: 'HTTP 503' },
      {
        now: new Date(),
        maxAttempts: 1,
        retrySeconds: 1,
      },
    );
    const action = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'i', schedule: 'every minute' },
      new Date(Date.now() - 120_000),
    );
    if (!action.ok) throw new Error(action.message);
    const [run] = (await assistant.claimDueActions(db.pool, new Date())).filter((r) => r.actionId === action.action.id);
    await assistant.finishActionRun(db.pool, run.runId, { status: 'failed', error: 'model timed out' });
    const mine = await db.pool.query(
      'SELECT source, message, retried FROM assistant.failures WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    expect(mine.rows).toEqual([
      {
        source: 'delivery',
        message: 'could not be delivered: gave up after 1 attempts: HTTP 503',
        retried: '1 attempt',
      },
      { source: 'action', message: 'model timed out', retried: null },
    ]);
  });

  it('a gap in the tick ledger is an outage; the owner gets one failure report an hour', async () => {
    await assistant.updateInstanceSettings(db.pool, { heartbeatIntervalSeconds: 300, ownerTelegramChatId: '777001' });
    const owner = (await assistant.resolveIdentity(db.pool, 'telegram', '777001')).userId;
    const base = Date.parse('2042-03-01T10:00:00Z');
    const first = await assistant.startTick(db.pool, new Date(base));
    // The failures of the tests above: reported at once, in one message.
    expect(first.failuresReported).toBeGreaterThanOrEqual(2);
    const user = await createUser(db.pool, 'late');
    await assistant.setReminder(db.pool, user, { text: 'during the outage', when: 'in 5 minutes' }, new Date(base));
    const after = await assistant.startTick(db.pool, new Date(base + 40 * 60_000));
    expect(after.outage).toMatchObject({ lateReminders: 1 });
    const outage = await db.pool.query(`SELECT message FROM assistant.failures WHERE source = 'outage'`);
    expect(outage.rows).toEqual([
      { message: 'down from Sat 2042-03-01 10:00 UTC to Sat 2042-03-01 10:40 UTC; 1 reminder delivered late' },
    ]);
    // Rate-limited: the last report went out 40 min ago.
    expect(after.failuresReported).toBe(0);
    // An hour after the last report: the outage above, and the 21 min without ticks before this one (also an outage).
    const hour = await assistant.startTick(db.pool, new Date(base + 61 * 60_000));
    expect(hour.failuresReported).toBe(2);
    await assistant.recordFailure(
      db.pool,
      { source: 'check', message: 'site returned 500' },
      new Date(base + 65 * 60_000),
    );
    expect((await assistant.startTick(db.pool, new Date(base + 70 * 60_000))).failuresReported).toBe(0);
    // The check's failure and the 52 min gap before this tick.
    expect((await assistant.startTick(db.pool, new Date(base + 122 * 60_000))).failuresReported).toBe(2);
    const reports = await db.pool.query(
      `SELECT text FROM assistant.outbox WHERE user_id = $1 AND kind = 'notice' ORDER BY id`,
      [owner],
    );
    expect(reports.rows).toHaveLength(3);
    expect(reports.rows[1].text).toContain('the assistant was down: down from');
    expect(reports.rows[2].text).toContain('check: site returned 500');
  });
});

describe('a recurring action refused by a spending cap', () => {
  it('is skipped for budget, not a failure', async () => {
    const userId = await createUser(db.pool, 'skipped-for-budget');
    const action = await assistant.scheduleAction(
      db.pool,
      userId,
      { instruction: 'summarise the news', schedule: 'every minute' },
      new Date(Date.now() - 120_000),
    );
    if (!action.ok) throw new Error(action.message);
    const [run] = (await assistant.claimDueActions(db.pool, new Date())).filter((r) => r.actionId === action.action.id);
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'summarise the news' });
    if (turn.kind !== 'turn') throw new Error('unreachable');
    await db.pool.query(
      `INSERT INTO assistant.model_calls (upstream, route, job, ref, provider, model, latency_ms, status, outcome, error)
       VALUES ('llm', 'chat', 'action', $1, 'p', 'm', 1, 402, 'over_budget', 'The model budget for today ($1.00) is spent')`,
      [String(turn.turnId)],
    );
    await assistant.finishActionRun(db.pool, run.runId, {
      status: 'failed',
      error: 'The model budget for today ($1.00) is spent',
      turnId: turn.turnId,
    });
    const stored = await db.pool.query('SELECT status FROM assistant.action_runs WHERE id = $1', [run.runId]);
    expect(stored.rows).toEqual([{ status: 'skipped' }]);
    const failures = await db.pool.query('SELECT source, message FROM assistant.failures WHERE user_id = $1', [userId]);
    expect(failures.rows).toEqual([
      {
        source: 'skipped',
        message: `recurring action ${action.action.id} was skipped for budget: The model budget for today ($1.00) is spent`,
      },
    ]);
  });
});

describe('streaks and the new sources', () => {
  const since = '2041-01-01T00:00:00Z';
  const at = (minute: number) => new Date(Date.UTC(2041, 0, 1, 9, minute));
  const list = async (userId: string) =>
    (await assistant.listFailures(db.pool, { since, userId, timeZone: 'UTC', now: at(59) })).failures.filter(
      (f) => f.source === 'provider',
    );

  it('the same failure in a row is one row with a count; another one, or one already reported, starts anew', async () => {
    const userId = await createUser(db.pool, 'streak');
    const provider = (message: string, minute: number) =>
      assistant.recordFailure(db.pool, { source: 'provider', userId, message, fingerprint: message }, at(minute));
    const first = await provider('HTTP 500', 1);
    expect(await provider('HTTP 500', 2)).toBe(first);
    expect(await provider('HTTP 500', 3)).toBe(first);
    const key = await provider('HTTP 401', 4);
    expect(key).not.toBe(first);
    expect(await provider('HTTP 500', 5)).not.toBe(first);
    const failures = await list(userId);
    expect(failures.map((f) => [f.message, f.count])).toEqual([
      ['HTTP 500', 1],
      ['HTTP 401', 1],
      ['HTTP 500', 3],
    ]);
    expect(assistant.describeFailureRecord(failures[2], 'UTC')).toBe(
      '2041-01-01 09:01: the model provider: HTTP 500 (3 times, the last at 09:03)',
    );
    await db.pool.query('UPDATE assistant.failures SET reported_at = now() WHERE user_id = $1', [userId]);
    expect(await provider('HTTP 500', 6)).not.toBe(first);
  });

  it('a failed turn is a failure of its user, named in plain words; one a spending cap refused is named once', async () => {
    const userId = await createUser(db.pool, 'turn-failure');
    const failed = await assistant.receiveMessage(db.pool, userId, { message: 'book it' });
    if (failed.kind !== 'turn') throw new Error('unreachable');
    await assistant.failTurn(db.pool, userId, failed.turnId, '502: the language model failed');
    const refused = await assistant.receiveMessage(db.pool, userId, { message: 'and this' });
    if (refused.kind !== 'turn') throw new Error('unreachable');
    await db.pool.query(
      `INSERT INTO assistant.model_calls (upstream, route, job, ref, provider, model, latency_ms, status, outcome, error)
       VALUES ('llm', 'chat', 'agent', $1, 'p', 'm', 1, 402, 'over_budget', 'Your model budget for today is spent')`,
      [String(refused.turnId)],
    );
    await assistant.failTurn(db.pool, userId, refused.turnId, 'Payment required');
    const rows = await db.pool.query('SELECT source, workflow, message FROM assistant.failures WHERE user_id = $1', [
      userId,
    ]);
    expect(rows.rows).toEqual([
      { source: 'turn', workflow: `turn ${failed.turnId} (api)`, message: '502: the language model failed' },
    ]);
  });
});
