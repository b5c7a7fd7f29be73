// Recall's rare words in many memories on a real Postgres 17: read newest first, week by week, through the
// dated-words index (migration 32), so recall reads their newest matches instead of every match; a memory older
// than the weeks looked up one by one is still found, and an old memory with two such words is found behind hundreds
// of newer memories with one. Here "kestrel", "osprey" and "merlin" are in ~1,400 of ~12,000 memories (rare by the
// table's statistics, but estimated in more than DATED_MATCHES).
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { COMMON_CANDIDATES, DATED_MATCHES } from '../../src/memory/search-terms';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
let userId: string;
const old: Record<string, number> = {};

/** Memories of a user: `count` rows of `text` and a number, the g-th made `daysApart` × g days ago. */
async function insertMany(user: string, text: string, count: number, daysApart: number) {
  await db.pool.query(
    `INSERT INTO assistant.memories (user_id, content, language, search_vector, created_at)
     SELECT $1, c, 'english', setweight(to_tsvector('english', c), 'A'), now() - g * $4::float8 * interval '1 day'
       FROM generate_series(1, $3::int) AS g, LATERAL (SELECT $2 || ' ' || g AS c) AS t`,
    [user, text, count, daysApart],
  );
}

beforeAll(async () => {
  userId = (await assistant.resolveIdentity(db.pool, 'api', 'dated-words')).userId;
  const other = (await assistant.resolveIdentity(db.pool, 'api', 'dated-words-other')).userId;
  for (const [key, content] of [
    ['pair', 'kestrel and osprey seen at the lake'],
    ['kestrel', 'a kestrel over the field'],
    ['merlin', 'a merlin on the fence post'],
  ]) {
    old[key] = (await assistant.remember(db.pool, userId, { content, importance: 5 })).id;
  }
  await db.pool.query(`UPDATE assistant.memories SET created_at = now() - interval '5 years' WHERE user_id = $1`, [
    userId,
  ]);
  // 400 newer memories with each of kestrel and osprey, over the last ~3 years; 250 with merlin over ~4 years, so
  // that all of them are candidates and the oldest is older than the weeks looked up one by one (63).
  await insertMany(userId, 'kestrel note', 400, 3);
  await insertMany(userId, 'osprey note', 400, 3);
  await insertMany(userId, 'merlin note', 250, 6);
  // Another user's memories make the words frequent enough in the table to be read week by week, yet rare.
  for (const word of ['kestrel', 'osprey', 'merlin']) await insertMany(other, `${word} elsewhere`, 1_000, 0.01);
  await insertMany(other, 'filler', 8_000, 0.01);
  await db.pool.query('ANALYZE assistant.memories');
});

describe('recall of rare words in many memories', () => {
  it('reads those words newest first through the dated-words index', async () => {
    const terms = await assistant.searchTerms(db.pool, 'english', 'kestrel osprey merlin');
    expect(terms.common).toEqual([]);
    expect(terms.dated.sort()).toEqual(['kestrel', 'merlin', 'osprey']);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM assistant.memories`);
    expect(rows[0].n * 0.1).toBeGreaterThan(DATED_MATCHES);
  });

  it('finds a memory older than the weeks looked up one by one', async () => {
    // A very long half-life, so the old memory (importance 5) competes on words and importance, not age.
    const found = await assistant.recall(db.pool, userId, 'merlin', { limit: 5, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old.merlin);
  });

  it('finds an old memory with two such words behind hundreds of newer ones with one', async () => {
    const found = await assistant.recall(db.pool, userId, 'osprey kestrel', { limit: 3, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old.pair);
  });

  it('one such word alone: its newest matches; an old memory with only that word is past the cap', async () => {
    const found = await assistant.recall(db.pool, userId, 'kestrel', { limit: 100, halfLifeDays: 36_500 });
    expect(found).toHaveLength(100);
    expect(found.map((m) => m.id)).not.toContain(old.kestrel);
    const newest = await db.pool.query(
      `SELECT id FROM assistant.memories WHERE user_id = $1 AND search_vector @@ 'kestrel'::tsquery
        ORDER BY created_at DESC LIMIT $2`,
      [userId, COMMON_CANDIDATES],
    );
    const newestIds = new Set(newest.rows.map((r) => Number(r.id)));
    expect(found.every((m) => newestIds.has(m.id))).toBe(true);
  });
});
