// Recall on a real Postgres 17: names (first name, misspelt), OR semantics and stemming in the user's language,
// ranking by relevance, importance and recency.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);

describe('recall', () => {
  it('finds a person by first name ("Stefan" → "Stefan Huber")', async () => {
    const userId = await newUser('stefan');
    await assistant.remember(db.pool, userId, {
      content: 'Stefan Huber is my climbing partner from Graz',
      people: ['Stefan Huber'],
      kind: 'person',
    });
    await assistant.remember(db.pool, userId, { content: 'The boiler needs a service in October' });
    const found = await assistant.recall(db.pool, userId, 'Stefan');
    expect(found.map((m) => m.content)).toEqual(['Stefan Huber is my climbing partner from Graz']);
  });

  it('matches misspelt names by trigram similarity where full text finds nothing', async () => {
    const userId = await newUser('trigram');
    await assistant.remember(db.pool, userId, {
      content: 'Met him at the gym on Tuesday',
      people: ['Arnold Schwarzenegger'],
    });
    const tsquery = await assistant.orQuery(db.pool, 'english', 'Schwarzeneger');
    const fullText = await db.pool.query(
      `SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1 AND search_vector @@ $2::tsquery`,
      [userId, tsquery],
    );
    expect(fullText.rows[0].n).toBe(0);
    const found = await assistant.recall(db.pool, userId, 'Schwarzeneger');
    expect(found).toHaveLength(1);
    expect(found[0].people).toEqual(['Arnold Schwarzenegger']);
  });

  it('searches with OR semantics and stemming in the configured language', async () => {
    const userId = await newUser('stemming');
    await assistant.remember(db.pool, userId, { content: 'I love pizza with anchovies' });
    await assistant.remember(db.pool, userId, { content: 'She runs marathons every spring' });
    await assistant.remember(db.pool, userId, { content: 'The car is blue' });
    const either = await assistant.recall(db.pool, userId, 'pizza or running?');
    expect(either.map((m) => m.content).sort()).toEqual([
      'I love pizza with anchovies',
      'She runs marathons every spring',
    ]);
    await assistant.updateUserSettings(db.pool, userId, { language: 'german' });
    await assistant.remember(db.pool, userId, { content: 'Wir haben die Häuser in Wien besichtigt' });
    const german = await assistant.recall(db.pool, userId, 'Haus');
    expect(german.map((m) => m.content)).toEqual(['Wir haben die Häuser in Wien besichtigt']);
  });

  it('ranks by relevance, importance and recency', async () => {
    const userId = await newUser('ranking');
    const old = await assistant.remember(db.pool, userId, { content: 'Project Falcon deadline is in March' });
    const recent = await assistant.remember(db.pool, userId, { content: 'Project Falcon deadline moved to May' });
    const vague = await assistant.remember(db.pool, userId, { content: 'Falcon is also a bird', importance: 1 });
    await db.pool.query(`UPDATE assistant.memories SET created_at = now() - interval '200 days' WHERE id = $1`, [
      old.id,
    ]);
    const ranked = await assistant.recall(db.pool, userId, 'Falcon project deadline');
    expect(ranked.map((m) => m.id)).toEqual([recent.id, old.id, vague.id]);
    expect(ranked[0].score).toBeGreaterThan(ranked[1].score);
    const important = await assistant.remember(db.pool, userId, {
      content: 'Falcon is also a bird of prey',
      importance: 5,
    });
    const birds = await assistant.recall(db.pool, userId, 'bird', { limit: 2 });
    expect(birds.map((m) => m.id)).toEqual([important.id, vague.id]);
  });
});
