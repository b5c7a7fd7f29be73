// Recall's name candidates on a real Postgres 17: a name shared by very many memories is capped like a common word
// (only its newest matches become candidates), so one first name cannot make recall fetch thousands of rows; an old
// memory naming that person is still found together with a rare word. Here "maria" (2,001 of 5,001 memories),
// "alpha" and "beta" (3,001 and 3,000, mostly another user's) are common by the table's statistics.
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { COMMON_CANDIDATES } from '../../src/memory/search-terms';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
let userId: string;
let old: number;

beforeAll(async () => {
  userId = (await assistant.resolveIdentity(db.pool, 'api', 'name-candidates')).userId;
  const other = (await assistant.resolveIdentity(db.pool, 'api', 'alpha-beta')).userId;
  old = (await assistant.remember(db.pool, userId, { content: 'alpha lunch', people: ['Maria Huber'], importance: 5 }))
    .id;
  await db.pool.query(`UPDATE assistant.memories SET created_at = now() - interval '3 years' WHERE id = $1`, [old]);
  // 2,000 newer memories naming her, as remember() stores a person: in names and in the search vector (weight B).
  await db.pool.query(
    `INSERT INTO assistant.memories (user_id, content, people, name_keys, names, language, search_vector, created_at)
     SELECT $1, 'note ' || g, '{Maria Huber}', '{maria huber}', 'Maria Huber', 'english',
            setweight(to_tsvector('english', 'note ' || g), 'A') || setweight(to_tsvector('english', 'Maria Huber'), 'B'),
            now() - g * interval '1 minute'
       FROM generate_series(1, 2000) AS g`,
    [userId],
  );
  await db.pool.query(
    `INSERT INTO assistant.memories (user_id, content, language, search_vector)
     SELECT $1, 'alpha beta', 'english', to_tsvector('english', 'alpha beta') FROM generate_series(1, 3000)`,
    [other],
  );
  await db.pool.query('ANALYZE assistant.memories');
});

describe('recall candidates by name', () => {
  it('a name in very many memories: only its newest matches are candidates', async () => {
    const terms = await assistant.searchTerms(db.pool, 'english', 'Maria alpha beta');
    expect(terms.common.sort()).toEqual(['alpha', 'beta', 'maria']);
    // A name (any word of 3 letters or more that may name someone) is common when its word is; a rare name's
    // matches all stay candidates.
    expect(terms.commonNames).toEqual(['maria', 'alpha', 'beta']);
    expect((await assistant.searchTerms(db.pool, 'english', 'Maria Zoltan')).commonNames).toEqual(['maria']);
    // The old memory matches two of the three common words (more than any newer one) but not all of them; were
    // every match of the name a candidate, it would rank first.
    const found = await assistant.recall(db.pool, userId, 'Maria alpha beta', { limit: 100, halfLifeDays: 36_500 });
    expect(found).toHaveLength(100);
    expect(found.map((m) => m.id)).not.toContain(old);
    const newest = await db.pool.query(
      `SELECT id FROM assistant.memories WHERE user_id = $1 ORDER BY created_at DESC LIMIT $2`,
      [userId, COMMON_CANDIDATES],
    );
    const newestIds = new Set(newest.rows.map((r) => Number(r.id)));
    expect(found.every((m) => newestIds.has(m.id))).toBe(true);
  });

  it('finds the old memory by the name together with a rare word', async () => {
    const found = await assistant.recall(db.pool, userId, 'Maria lunch', { limit: 3, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old);
  });
});
