// The tests' hook for PGlite with `vector` (pglite-server.ts): started before a file's tests, stopped after them.
import { afterAll, beforeAll } from 'vitest';
import { startPgliteDatabase, type PgliteDatabase } from './pglite-server';

export { startPgliteDatabase, type PgliteDatabase };

/** Starts a migrated PGlite before the file's tests and stops it after them (like useAssistantDatabase). */
export function usePgliteDatabase(): Pick<PgliteDatabase, 'pool' | 'url'> {
  let db: PgliteDatabase | undefined;
  beforeAll(async () => {
    db = await startPgliteDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });
  const started = (): PgliteDatabase => {
    if (!db) throw new Error('PGlite is not started yet: read it inside a test or hook.');
    return db;
  };
  return {
    get pool() {
      return started().pool;
    },
    get url() {
      return started().url;
    },
  };
}
