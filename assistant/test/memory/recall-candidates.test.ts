// Recall's bounded candidate set on a real Postgres 17: words that Postgres' statistics show in very many memories
// (here over sqrt(300 / 904) ≈ 58%) are "common" and only their newest matches become candidates, while rare
// words, names, and memories containing all the common words together are found however old.
import { beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();
let userId: string;
const old: Record<string, number> = {};

beforeAll(async () => {
  userId = (await assistant.resolveIdentity(db.pool, 'api', 'candidates')).userId;
  for (const [key, content, people] of [
    ['both', 'widget and gadget review for the falcon team', []],
    ['rare', 'the widget zebra incident', []],
    ['name', 'lunch planned', ['Stefan Gruber']],
    ['widgetOnly', 'first widget ever', []],
  ] as const) {
    const memory = await assistant.remember(db.pool, userId, { content, people: [...people], importance: 5 });
    old[key] = memory.id;
  }
  await db.pool.query(`UPDATE assistant.memories SET created_at = now() - interval '3 years' WHERE user_id = $1`, [
    userId,
  ]);
  // 900 newer memories: 60% name "widget", 60% "gadget", 20% both.
  await db.pool.query(
    `INSERT INTO assistant.memories (user_id, content, language, search_vector, created_at)
     SELECT $1, c, 'english', setweight(to_tsvector('english', c), 'A'), now() - g * interval '1 minute'
       FROM generate_series(1, 900) AS g,
            LATERAL (SELECT (CASE g % 5 WHEN 0 THEN 'widget' WHEN 1 THEN 'widget' WHEN 2 THEN 'widget gadget' ELSE 'gadget' END) || ' note ' || g AS c) AS t`,
    [userId],
  );
  await db.pool.query('ANALYZE assistant.memories');
});

describe('recall candidates', () => {
  it('classifies words by the table statistics', async () => {
    const terms = await assistant.searchTerms(db.pool, 'english', 'widget gadget zebra');
    expect(terms.common.sort()).toEqual(['gadget', 'widget']);
    expect(terms.rare).toEqual(['zebra']);
    expect((await assistant.searchTerms(db.pool, 'english', 'falcon zebra')).common).toEqual([]);
  });

  it('finds an old memory by a rare word next to a common one', async () => {
    const found = await assistant.recall(db.pool, userId, 'zebra widget', { limit: 3, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old.rare);
  });

  it('finds an old memory that contains all the common words together', async () => {
    // A very long half-life (here and above), so the old memories compete on words and importance (5), not age.
    const found = await assistant.recall(db.pool, userId, 'widget gadget', { limit: 3, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old.both);
  });

  it('finds an old memory by a name next to a common word', async () => {
    const found = await assistant.recall(db.pool, userId, 'Stefan widget', { limit: 3, halfLifeDays: 36_500 });
    expect(found[0].id).toBe(old.name);
  });

  it('a common word alone: the newest matches; an old memory with only that word is past the cap', async () => {
    const found = await assistant.recall(db.pool, userId, 'widget', { limit: 5 });
    const newest = await db.pool.query(
      `SELECT id FROM assistant.memories WHERE user_id = $1 AND search_vector @@ 'widget'::tsquery ORDER BY created_at DESC LIMIT 5`,
      [userId],
    );
    expect(found.map((m) => m.id)).toEqual(newest.rows.map((r) => Number(r.id)));
    // With age out of the score, it would rank first (importance 5) if it were a candidate.
    const all = await assistant.recall(db.pool, userId, 'widget', { limit: 100, halfLifeDays: 36_500 });
    expect(all.map((m) => m.id)).not.toContain(old.widgetOnly);
  });
});
