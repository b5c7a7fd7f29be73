// scripts/migrate.ts: its command line, and the pgvector index set up only where the extension exists; bad settings
// name the flag or variable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../scripts/runtime/postgres';
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
    expect(await setUpVectorIndex(db.server.url, '256')).toMatch(
      /no pgvector index \(the vector extension is not installed/,
    );
    await expect(setUpVectorIndex(db.server.url, 'big')).rejects.toThrow(
      /^ASSISTANT_EMBEDDING_DIMENSIONS: dimensions: /,
    );
  });
});

describe('scripts/migrate.ts', () => {
  it('runs as a CLI against --url, idempotently, and refuses a bad URL naming the flag', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = promisify(execFile);
    const tsx = 'node_modules/.bin/tsx';
    await createDatabase(db.server.url, 'cli_migrations');
    const url = db.server.url.replace(/\/assistant_test$/, '/cli_migrations');
    const first = await run(tsx, ['scripts/migrate.ts', '--url', url]);
    expect(first.stdout).toMatch(/assistant schema migrated to version \d+ \(applied 1/);
    const second = await run(tsx, ['scripts/migrate.ts'], { env: { ...process.env, ASSISTANT_DATABASE_URL: url } });
    expect(second.stdout).toMatch(/assistant schema is up to date/);
    const bad = await run(tsx, ['scripts/migrate.ts', '--url', 'mysql://nope']).catch(
      (e: { stderr: string; code: number }) => e,
    );
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/--url: expected a postgres:\/\/ connection URL/);
  });
});
