// The steps of starting a Postgres cluster: its data folder, initdb on first use, the server process, and waiting
// until it takes connections.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { assertTraversable, SUPERUSER } from './postgres-folders';
import { StartupFailed, stopProcess, waitFor } from './process';

type SystemUser = { uid: number; gid: number } | undefined;

/** Where a cluster lives: a kept data folder, or a fresh temporary one (removed on stop) holding data and log. */
export interface ClusterFolders {
  temporary: boolean;
  root: string;
  dataDir: string;
  logFile: string;
}

/** The running server process, and its stop (which removes a temporary data folder). */
export interface ServerProcess {
  child: ChildProcess;
  exited(): boolean;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** The data folder (kept or temporary), created and owned by the Postgres user. */
export function prepareDataDir(dataDirOption: string | undefined, user: SystemUser): ClusterFolders {
  const temporary = dataDirOption === undefined;
  const root = temporary ? mkdtempSync(path.join(tmpdir(), 'pg17-')) : path.resolve(dataDirOption!);
  const dataDir = temporary ? path.join(root, 'data') : root;
  const logFile = temporary ? path.join(root, 'postgres.log') : `${root}.log`;
  if (user && !temporary) assertTraversable(path.dirname(dataDir), user);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) {
    if (temporary) chownSync(root, user.uid, user.gid);
    chownSync(dataDir, user.uid, user.gid);
  }
  return { temporary, root, dataDir, logFile };
}

/** initdb: the superuser with the password (scram-sha-256), or trust auth without one. */
export function initCluster(initdb: string, dataDir: string, password: string | undefined, user: SystemUser): void {
  const args = ['-D', dataDir, '-U', SUPERUSER, '--encoding=UTF8', '--no-locale', '--no-instructions'];
  let pwFile: string | undefined;
  if (password !== undefined) {
    // A private folder the Postgres user can read (initdb reads the password from a file).
    const pwDir = mkdtempSync(path.join(tmpdir(), 'pg-init-'));
    pwFile = path.join(pwDir, 'password');
    writeFileSync(pwFile, password, { mode: 0o600 });
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

/** `postgres` on 127.0.0.1:port in its own process group, killed if we exit without stopping it. */
export function spawnServer(
  postgresBin: string,
  folders: ClusterFolders,
  port: number,
  user: SystemUser,
): ServerProcess {
  const { temporary, root, dataDir, logFile } = folders;
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

  const stop = async () => {
    process.off('exit', killOnExit);
    await stopProcess(child, { signal: 'SIGINT', timeoutMs: 15_000 });
    if (temporary) rmSync(root, { recursive: true, force: true });
  };
  return { child, exited: () => exited, exit, stop };
}

/** Waits until the server answers a query at `url`; stops waiting at once if it exits. */
export async function waitUntilAccepting(
  url: string,
  server: ServerProcess,
  port: number,
  logFile: string,
): Promise<void> {
  await waitFor(
    async () => {
      if (server.exited()) throw new StartupFailed(`postgres exited during start-up; see ${logFile}`);
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
}
