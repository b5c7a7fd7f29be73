// The optional pgvector index on a real Postgres 17 without the `vector` extension: enableVectorIndex declines and
// says why, and checks the dimension.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();

describe('vector index', () => {
  it('this server has no vector extension, so enableVectorIndex declines and says why', async () => {
    expect(await assistant.vectorExtensionAvailable(db.pool)).toBe(false);
    const result = await assistant.enableVectorIndex(db.pool, 256);
    expect(result).toMatchObject({ pgvector: false, dimensions: null });
    expect(result.reason).toMatch(/vector extension is not installed/);
    expect(await assistant.vectorIndexDimensions(db.pool)).toBeNull();
    await expect(assistant.enableVectorIndex(db.pool, 0)).rejects.toMatchObject({ field: 'dimensions' });
    await expect(assistant.enableVectorIndex(db.pool, 5000)).rejects.toMatchObject({ field: 'dimensions' });
  });
});
