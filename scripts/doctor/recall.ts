// Which path recall by meaning takes on the assistant's database (scripts/doctor/recall-path.ts): one short
// connection, two catalogue reads. Without a database setting, or when the database cannot be read, it says so
// (doctor still gives its verdict on the models).
import { Pool } from 'pg';
import { checkRecallPath, recallPathLine, type RecallPathCheck } from './recall-path';
import type { OptionalCheck } from './embeddings';
import type { DoctorSettings } from './settings';

export type RecallCheck = RecallPathCheck | { path: 'not checked'; indexDimensions: null; detail: string };

/** The dimensions recall-path.ts needs: undefined with no embeddings, null when they did not answer. */
function embeddingDimensions(embeddings: OptionalCheck): number | null | undefined {
  if (!embeddings.configured) return undefined;
  return embeddings.works && embeddings.dimensions ? embeddings.dimensions : null;
}

export async function checkRecall(
  settings: DoctorSettings,
  embeddings: OptionalCheck,
  timeoutMs: number,
): Promise<RecallCheck> {
  if (!settings.database)
    return {
      path: 'not checked',
      indexDimensions: null,
      detail: 'no database setting (ASSISTANT_DATABASE_URL, or POSTGRES_PASSWORD of run.sh)',
    };
  const pool = new Pool({
    connectionString: settings.database.url,
    password: settings.database.password,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  try {
    return await checkRecallPath(pool, embeddingDimensions(embeddings));
  } catch (error) {
    return { path: 'not checked', indexDimensions: null, detail: `the database: ${(error as Error).message}` };
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** The report's line: recall-path.ts's, or why the path was not checked. */
export function recallLine(check: RecallCheck): string {
  return check.path === 'not checked'
    ? `note recall by meaning: the path was not checked: ${check.detail}`
    : recallPathLine(check);
}
