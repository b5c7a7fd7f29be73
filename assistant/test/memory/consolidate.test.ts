// The nightly consolidation on a real Postgres 17 and a moved clock: repeats merged, old low-value memories folded
// into summaries within the budget, the ledger written and told in plain words, pinned and recent unconfirmed
// memories kept, folded ones not recalled, restored by id for 30 days (refused after), a failed summary changing
// nothing, the summaries of the people and things with memories new since the previous run rewritten (and told),
// and the users due in their local quiet hours.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();
const now = new Date('2027-06-01T01:30:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);

/** Joins the texts: a summary the test can read back. */
const summarise: assistant.Summarise = async (texts) => `Summary of ${texts.length}: ${texts.join(' / ')}`;

async function stored(userId: string, content: string, createdAt: Date, extra: Record<string, unknown> = {}) {
  const memory = await assistant.remember(db.pool, userId, { content, ...extra });
  await db.pool.query('UPDATE assistant.memories SET created_at = $2, updated_at = $2 WHERE id = $1', [
    memory.id,
    createdAt,
  ]);
  return memory;
}

const liveIds = async (userId: string) =>
  (
    await db.pool.query(
      `SELECT id FROM assistant.memories WHERE user_id = $1 AND superseded_at IS NULL AND folded_at IS NULL ORDER BY id`,
      [userId],
    )
  ).rows.map((row) => Number(row.id));

describe('consolidateMemories', () => {
  it('merges repeats, folds the oldest low-value memories within the budget, keeps pinned ones and writes its ledger', async () => {
    const userId = await createUser(db.pool, 'consolidate-main');
    const repeatOld = await stored(userId, 'I like green tea in the morning', daysAgo(90));
    const repeatNew = await stored(userId, 'In the morning I like green tea', daysAgo(40), { importance: 4 });
    const trivia = [];
    for (let i = 0; i < 6; i++)
      trivia.push(await stored(userId, `Lunch note ${i} about soup kind ${i}`, daysAgo(200 - i), { importance: 1 }));
    const pinned = await stored(userId, 'The first bike was a red Puch', daysAgo(300), { importance: 1 });
    await assistant.pinMemory(db.pool, userId, pinned.id, true);
    const recentUnconfirmed = await stored(userId, 'Recent lunch note about soup', daysAgo(2), { importance: 1 });
    await db.pool.query('UPDATE assistant.memories SET confirmed = false WHERE id = $1', [recentUnconfirmed.id]);
    const important = await stored(userId, 'My passport number ends in 42', daysAgo(400), { importance: 5 });

    // 11 live; the repeat merges (10), then 10 → 6 folds the five least important old ones into one summary.
    const result = await assistant.consolidateMemories(db.pool, userId, { now, budget: 6, summarise });
    expect(result.liveBefore).toBe(11);
    expect(result.merged).toEqual([
      { action: 'merged', into: repeatNew.id, ids: [repeatOld.id], content: 'In the morning I like green tea' },
    ]);
    expect(result.folded).toHaveLength(1);
    const [fold] = result.folded;
    // The least important first (importance 1), oldest first, never the pinned or the recent unconfirmed one.
    expect(fold.ids).toEqual(trivia.slice(0, 5).map((m) => m.id));
    expect(fold.content).toBe(
      `Summary of 5: ${trivia
        .slice(0, 5)
        .map((m) => m.content)
        .join(' / ')}`,
    );
    expect(result.liveAfter).toBe(6);
    expect(await liveIds(userId)).toEqual(
      [repeatNew.id, trivia[5].id, pinned.id, recentUnconfirmed.id, important.id, fold.into].sort((a, b) => a - b),
    );
    const summary = await assistant.getMemory(db.pool, userId, fold.into);
    expect(summary).toMatchObject({ kind: 'note', source: 'consolidation', importance: 1, confirmed: true });

    // Folded and merged memories are history: not recalled, not listed; the summary is.
    const recalled = (await assistant.recall(db.pool, userId, 'lunch note soup', { limit: 20 })).map((m) => m.id);
    expect(recalled).toContain(fold.into);
    for (const m of trivia.slice(0, 5)) expect(recalled).not.toContain(m.id);
    const recent = (await assistant.recentMemories(db.pool, userId, 100)).map((m) => m.id);
    expect(recent).not.toContain(repeatOld.id);
    expect(recent).not.toContain(trivia[0].id);

    const ledger = await db.pool.query(
      `SELECT e.action, e.into_id, e.memory_ids FROM assistant.consolidation_entries e
         JOIN assistant.consolidation_runs r ON r.id = e.run_id WHERE r.id = $1 ORDER BY e.id`,
      [result.runId],
    );
    expect(ledger.rows.map((row) => [row.action, Number(row.into_id), row.memory_ids.map(Number)])).toEqual([
      ['merged', repeatNew.id, [repeatOld.id]],
      ['folded', fold.into, fold.ids],
    ]);
    const report = await assistant.consolidationReport(db.pool, userId, { since: daysAgo(1) });
    expect(report.text).toBe(
      [
        '2027-06-01 01:30 UTC: 11 memories before, 6 after.',
        `- 1 repeats merged into memory ${repeatNew.id}: ${repeatOld.id}`,
        `- 5 old memories folded into the summary memory ${fold.into}: ${fold.ids.join(', ')}`,
        'Any of them can be restored by id for 30 days.',
      ].join('\n'),
    );

    // Within the budget a second pass does nothing but record that.
    const again = await assistant.consolidateMemories(db.pool, userId, { now, budget: 6, summarise });
    expect(again).toMatchObject({ liveBefore: 6, liveAfter: 6, merged: [], folded: [] });
  });

  it('restores a folded memory by id for 30 days, then refuses naming the id', async () => {
    const userId = await createUser(db.pool, 'consolidate-restore');
    const old = [];
    for (let i = 0; i < 4; i++) old.push(await stored(userId, `Old parking spot ${i} level ${i}`, daysAgo(100 + i)));
    const result = await assistant.consolidateMemories(db.pool, userId, { now, budget: 2, summarise });
    expect(result.folded.map((entry) => entry.ids.length)).toEqual([3]);
    const [first, second] = result.folded[0].ids;

    const restored = await assistant.restoreMemory(db.pool, userId, first, { now: daysAgo(-29) });
    expect(restored).toMatchObject({ id: first, foldedInto: null, foldedAt: null });
    const recalled = await assistant.recall(db.pool, userId, 'parking spot level', { limit: 20 });
    expect(recalled.map((m) => m.id)).toContain(first);
    const report = await assistant.consolidationReport(db.pool, userId, { since: daysAgo(1) });
    expect(report.runs[0].entries[0].restored).toEqual([first]);
    expect(report.text).toContain(`(restored since: ${first})`);

    await expect(assistant.restoreMemory(db.pool, userId, second, { now: daysAgo(-30) })).rejects.toThrow(
      `memory ${second} was folded on 2027-06-01; it could be restored for 30 days, until 2027-07-01`,
    );
    await expectFieldError(() => assistant.restoreMemory(db.pool, userId, second, { now: daysAgo(-31) }), 'memoryId');
    await expectFieldError(() => assistant.restoreMemory(db.pool, userId, first, { now }), 'memoryId');
    await expectFieldError(() => assistant.restoreMemory(db.pool, userId, 99_999_999, { now }), 'memoryId', 'notFound');
  });

  it('keeps folded memories out of query_graph', async () => {
    const userId = await createUser(db.pool, 'consolidate-graph');
    const folded = [];
    for (let i = 0; i < 3; i++)
      folded.push(await stored(userId, `Anna Berger sent invoice ${i}`, daysAgo(100 + i), { people: ['Anna Berger'] }));
    await assistant.relate(db.pool, userId, { from: 'Anna Berger', relation: 'accountant_of', to: 'the user' });
    const before = await assistant.queryGraph(db.pool, userId, 'Anna Berger');
    expect(before.memories).toHaveLength(3);
    const result = await assistant.consolidateMemories(db.pool, userId, { now, budget: 1, summarise });
    const after = await assistant.queryGraph(db.pool, userId, 'Anna Berger');
    expect(after.memories.map((m) => m.id)).toEqual([result.folded[0].into]);
  });

  it('rewrites the summaries of the people and things with memories new since the previous run, and tells it', async () => {
    const userId = await createUser(db.pool, 'consolidate-entities');
    for (const name of ['Anna Berger', 'Stefan Huber'])
      await assistant.upsertEntity(db.pool, userId, { name, type: 'person' });
    await stored(userId, 'Anna Berger does my tax return', daysAgo(60), { people: ['Anna Berger'] });
    await stored(userId, 'Anna Berger wants the receipts by March', daysAgo(50), { people: ['Anna Berger'] });
    await stored(userId, 'Stefan Huber climbs on Sundays', daysAgo(40), { people: ['Stefan Huber'] });
    const calls: string[] = [];
    const summariseEntity: assistant.SummariseEntity = async ({ name, facts }) => {
      calls.push(name);
      return `${name}: ${facts.join(' / ')}`;
    };
    const summaryOf = async (name: string) => (await assistant.findEntity(db.pool, userId, name))?.summary;

    // The first run (no run before): every entity a memory mentions, most mentioned first.
    const first = await assistant.consolidateMemories(db.pool, userId, { now, summarise, summariseEntity });
    expect(first.entitiesSummarised).toEqual(['Anna Berger', 'Stefan Huber']);
    expect(await summaryOf('Stefan Huber')).toBe(
      `Stefan Huber: ${daysAgo(40).toISOString().slice(0, 10)}: Stefan Huber climbs on Sundays`,
    );

    // The next night only Stefan has a new memory. A failed summary call leaves everything as it was (no run).
    const nextNight = daysAgo(-1);
    await stored(userId, 'Stefan Huber moved to Graz', daysAgo(-0.5), { people: ['Stefan Huber'] });
    await stored(userId, 'Anna Berger wants the receipts by March!', daysAgo(45), { people: ['Anna Berger'] });
    const before = await liveIds(userId);
    const failing: assistant.SummariseEntity = async () => {
      throw new Error('the model call failed (402): budget');
    };
    await expect(
      assistant.consolidateMemories(db.pool, userId, { now: nextNight, summarise, summariseEntity: failing }),
    ).rejects.toThrow('402');
    await expectFieldError(
      () =>
        assistant.consolidateMemories(db.pool, userId, { now: nextNight, summarise, summariseEntity: async () => '' }),
      'entitySummary',
    );
    expect(await liveIds(userId)).toEqual(before);
    expect(await summaryOf('Stefan Huber')).toContain('climbs on Sundays');
    const runs = await db.pool.query('SELECT count(*)::int AS n FROM assistant.consolidation_runs WHERE user_id = $1', [
      userId,
    ]);
    expect(runs.rows[0].n).toBe(1);

    calls.length = 0;
    const second = await assistant.consolidateMemories(db.pool, userId, { now: nextNight, summarise, summariseEntity });
    // The repeat about Anna's receipts is merged, but it is not new since the first run: Stefan only.
    expect(second.merged).toHaveLength(1);
    expect(second.entitiesSummarised).toEqual(['Stefan Huber']);
    expect(calls).toEqual(['Stefan Huber']);
    expect(await summaryOf('Stefan Huber')).toContain('Stefan Huber moved to Graz');
    const ledger = await db.pool.query('SELECT entities_summarised FROM assistant.consolidation_runs WHERE id = $1', [
      second.runId,
    ]);
    expect(ledger.rows).toEqual([{ entities_summarised: ['Stefan Huber'] }]);

    // Without summariseEntity no summary is rewritten.
    await stored(userId, 'Anna Berger retires in May', daysAgo(-1.5), { people: ['Anna Berger'] });
    const third = await assistant.consolidateMemories(db.pool, userId, { now: daysAgo(-2), summarise });
    expect(third.entitiesSummarised).toEqual([]);
    expect(await summaryOf('Anna Berger')).not.toContain('retires');
    await expectFieldError(
      () =>
        assistant.consolidateMemories(db.pool, userId, {
          now: daysAgo(-3),
          summarise,
          summariseEntity: 'yes' as unknown as assistant.SummariseEntity,
        }),
      'summariseEntity',
    );

    const report = await assistant.consolidationReport(db.pool, userId, { since: daysAgo(1) });
    expect(report.runs.map((run) => run.entitiesSummarised)).toEqual([
      [],
      ['Stefan Huber'],
      ['Anna Berger', 'Stefan Huber'],
    ]);
    expect(report.text).toBe(
      [
        '2027-06-03 01:30 UTC: 5 memories before, 5 after.',
        '- nothing needed tidying',
        '2027-06-02 01:30 UTC: 5 memories before, 4 after.',
        `- 1 repeats merged into memory ${second.merged[0].into}: ${second.merged[0].ids.join(', ')}`,
        '- 1 people and things re-summarised: Stefan Huber',
        '2027-06-01 01:30 UTC: 3 memories before, 3 after.',
        '- 2 people and things re-summarised: Anna Berger, Stefan Huber',
        'Any of them can be restored by id for 30 days.',
      ].join('\n'),
    );
  });

  it('leaves the memories as they were when the summary fails', async () => {
    const userId = await createUser(db.pool, 'consolidate-fails');
    await stored(userId, 'I like green tea', daysAgo(90));
    await stored(userId, 'I like green tea!', daysAgo(80));
    for (let i = 0; i < 4; i++) await stored(userId, `Old receipt ${i} from shop ${i}`, daysAgo(100 + i));
    const before = await liveIds(userId);
    const failing: assistant.Summarise = async () => {
      throw new Error('the model call failed (402): budget');
    };
    await expect(
      assistant.consolidateMemories(db.pool, userId, { now, budget: 2, summarise: failing }),
    ).rejects.toThrow('402');
    expect(await liveIds(userId)).toEqual(before);
    const runs = await db.pool.query('SELECT 1 FROM assistant.consolidation_runs WHERE user_id = $1', [userId]);
    expect(runs.rowCount).toBe(0);
    await expectFieldError(
      () => assistant.consolidateMemories(db.pool, userId, { now, budget: 0, summarise }),
      'budget',
    );
    await expectFieldError(
      () => assistant.consolidateMemories(db.pool, userId, { now, budget: 2, summarise: async () => '  ' }),
      'summary',
    );
    expect(await liveIds(userId)).toEqual(before);
  });
});

describe('consolidateMemories with a time limit', () => {
  it('starts no summary after stopAt: keeps what it did, is incomplete, is due again and finishes in the next run', async () => {
    const userId = await createUser(db.pool, 'consolidate-limit');
    await assistant.updateUserPreferences(db.pool, userId, { timeZone: 'UTC', quietHours: '01:00-03:00' });
    for (let i = 0; i < 80; i++)
      await stored(userId, `Receipt ${i} from shop ${i}`, daysAgo(300 - i), { importance: 1 });
    // Each summary takes a minute on this clock; no summary may start 150 s after the start.
    let clock = now.getTime();
    const slow: assistant.Summarise = async (texts) => {
      clock += 60_000;
      return summarise(texts);
    };
    const stopAt = new Date(now.getTime() + 150_000);
    const first = await assistant.consolidateMemories(db.pool, userId, {
      now,
      budget: 5,
      summarise: slow,
      stopAt,
      clock: () => new Date(clock),
    });
    // 80 → 5 needs four folds of 20; three started before the limit.
    expect(first.folded.map((entry) => entry.ids.length)).toEqual([20, 20, 20]);
    expect(first).toMatchObject({ complete: false, liveBefore: 80, liveAfter: 23 });
    expect((await liveIds(userId)).length).toBe(23);
    const due = async (at: Date) =>
      (await assistant.dueConsolidations(db.pool, { now: at, limit: 1000 })).some((d) => d.userId === userId);
    expect(await due(new Date(now.getTime() + 60_000))).toBe(true);

    const later = new Date(now.getTime() + 60_000);
    const second = await assistant.consolidateMemories(db.pool, userId, { now: later, budget: 5, summarise });
    expect(second).toMatchObject({ complete: true, liveBefore: 23, liveAfter: 5 });
    expect(await due(new Date(later.getTime() + 60_000))).toBe(false);
    const report = await assistant.consolidationReport(db.pool, userId, { since: daysAgo(1) });
    expect(report.runs.map((run) => run.complete)).toEqual([true, false]);
    expect(report.text).toContain('80 memories before, 23 after. It stopped at its time limit; the next run went on.');
    await expectFieldError(
      () => assistant.consolidateMemories(db.pool, userId, { now, summarise, stopAt: 'soon' as unknown as Date }),
      'stopAt',
    );
  });
});

describe('dueConsolidations', () => {
  it('names users whose local quiet hours hold now and who were not consolidated in 20 hours', async () => {
    const vienna = await createUser(db.pool, 'due-vienna');
    const tokyo = await createUser(db.pool, 'due-tokyo');
    const empty = await createUser(db.pool, 'due-empty');
    for (const userId of [vienna, tokyo, empty])
      await assistant.updateUserPreferences(db.pool, userId, { quietHours: '22:00-07:00' });
    await assistant.updateUserPreferences(db.pool, vienna, { timeZone: 'Europe/Vienna' });
    await assistant.updateUserPreferences(db.pool, tokyo, { timeZone: 'Asia/Tokyo' });
    await stored(vienna, 'Vienna fact', daysAgo(1));
    await stored(tokyo, 'Tokyo fact', daysAgo(1));
    const mine = async (at: Date) =>
      (await assistant.dueConsolidations(db.pool, { now: at, limit: 1000 }))
        .map((due) => due.userId)
        .filter((id) => [vienna, tokyo, empty].includes(id));

    // 01:30 UTC: 03:30 in Vienna (quiet), 10:30 in Tokyo (not); the user without memories is never due.
    expect(await mine(now)).toEqual([vienna]);
    await assistant.consolidateMemories(db.pool, vienna, { now, summarise });
    expect(await mine(now)).toEqual([]);
    // 19 hours later (22:30 in Vienna, 05:30 in Tokyo) Vienna is not due yet; the next night (24 h later) it is.
    expect(await mine(new Date(now.getTime() + 19 * 3_600_000))).toEqual([tokyo]);
    expect(await mine(new Date(now.getTime() + 24 * 3_600_000))).toEqual([vienna]);
    // 16:00 UTC: 01:00 in Tokyo.
    expect(await mine(new Date('2027-06-01T16:00:00Z'))).toEqual([tokyo]);
  });
});

describe('pinMemory and listKept', () => {
  it('pins, and lists memories and an entity’s graph facts with ids and dates', async () => {
    const userId = await createUser(db.pool, 'kept-list');
    const fact = await assistant.rememberThroughGate(
      db.pool,
      userId,
      { content: 'Stefan Huber is my accountant', people: ['Stefan Huber'] },
      { now },
    );
    const other = await stored(userId, 'I prefer window seats', daysAgo(3));
    await db.pool.query('UPDATE assistant.memories SET confirmed = false WHERE id = $1', [other.id]);
    const pinned = await assistant.pinMemory(db.pool, userId, fact.memory.id, true);
    expect(pinned.pinned).toBe(true);
    await expectFieldError(() => assistant.pinMemory(db.pool, userId, fact.memory.id, 'yes'), 'pinned');
    await expectFieldError(() => assistant.pinMemory(db.pool, userId, 99_999_999, true), 'memoryId', 'notFound');

    const all = await assistant.listKept(db.pool, userId);
    const day = fact.memory.createdAt.slice(0, 10);
    // Newest first (the window seats were dated on the moved clock, after the accountant).
    expect(all.lines).toEqual([
      `memory ${other.id} (2027-05-29, unconfirmed): I prefer window seats`,
      `memory ${fact.memory.id} (${day}, pinned): Stefan Huber is my accountant`,
    ]);
    const about = await assistant.listKept(db.pool, userId, { about: 'Stefan Huber', now });
    expect(about.lines[0]).toMatch(/^entity \d+: Stefan Huber \(person\)$/);
    expect(about.lines.at(-1)).toBe(`memory ${fact.memory.id} (${day}, pinned): Stefan Huber is my accountant`);
    expect(about.memories.map((m) => m.id)).toEqual([fact.memory.id]);
    await expectFieldError(() => assistant.listKept(db.pool, userId, { about: 'Nobody' }), 'name', 'notFound');
  });
});
