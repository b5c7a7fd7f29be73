// The optional pgvector index on a real Postgres 17 without the `vector` extension: enableVectorIndex declines and
// says why, and checks the dimension.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import * as assistant from '../../src';
import { startAssistantDatabase, type TestDatabase } from '../database';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await startAssistantDatabase();
  pool = db.pool;
});
afterAll(async () => {
  await db?.stop();
});

describe('vector index', () => {
  it('this server has no vector extension, so enableVectorIndex declines and says why', async () => {
    expect(await assistant.vectorExtensionAvailable(pool)).toBe(false);
    const result = await assistant.enableVectorIndex(pool, 256);
    expect(result).toMatchObject({ pgvector: false, dimensions: null });
    expect(result.reason).toMatch(/vector extension is not installed/);
    expect(await assistant.vectorIndexDimensions(pool)).toBeNull();
    await expect(assistant.enableVectorIndex(pool, 0)).rejects.toMatchObject({ field: 'dimensions' });
    await expect(assistant.enableVectorIndex(pool, 5000)).rejects.toMatchObject({ field: 'dimensions' });
  });
});
