// A real Postgres 17 for the judge tests (scripts/runtime/postgres.ts, installed by scripts/runtime/install.sh).
// Imported at run time by path: the judge's tsconfig keeps every source under judge/, and the runner lies outside.
import path from 'node:path';
import { repoRoot } from './repo';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

interface PostgresRuntime {
  startPostgres(options: { database?: string }): Promise<TestPostgres>;
}

export async function startTestPostgres(database: string): Promise<TestPostgres> {
  const runtime = path.join(repoRoot, 'scripts', 'runtime', 'postgres.ts');
  const { startPostgres } = (await import(runtime)) as PostgresRuntime;
  return startPostgres({ database });
}
