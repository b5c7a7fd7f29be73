// scripts/migrate.ts: the pgvector index is set up only where the extension exists, and bad settings name the variable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssistantDatabase, type TestDatabase } from '../../assistant/test/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await startAssistantDatabase();
});
afterAll(async () => {
  await db?.stop();
});

describe('scripts/migrate.ts with ASSISTANT_EMBEDDING_DIMENSIONS', () => {
  it('reports that this server has no pgvector, and names the variable for a bad value', async () => {
    const { setUpVectorIndex } = await import('../../scripts/migrate');
    expect(await setUpVectorIndex(db.server.url, undefined)).toBeUndefined();
    expect(await setUpVectorIndex(db.server.url, '256')).toMatch(/no pgvector index \(the vector extension is not installed/);
    await expect(setUpVectorIndex(db.server.url, 'big')).rejects.toThrow(/^ASSISTANT_EMBEDDING_DIMENSIONS: dimensions: /);
  });
});
