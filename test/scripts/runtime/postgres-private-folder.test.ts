// Root with the clone in a folder only root may enter (a `mktemp -d` folder, or /root): Postgres runs as its own
// user, which cannot reach binaries or data in there. The runtime gives it a reachable copy of the binaries and a
// reachable data folder (linked from where the operator looks), and says which folder blocks a kept data folder.
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
let privateDir: string;
let sharedDir: string;
let runtime: typeof import('../../../scripts/runtime/postgres');

beforeAll(async () => {
  privateDir = mkdtempSync(path.join(tmpdir(), 'private-clone-')); // mode 700, as mktemp -d makes it
  sharedDir = mkdtempSync(path.join(tmpdir(), 'shared-runtime-'));
  rmSync(sharedDir, { recursive: true });
  process.env.RUNTIME_SHARED_DIR = sharedDir;
  runtime = await import('../../../scripts/runtime/postgres');
  const packageDir = path.dirname(runtime.POSTGRES_PACKAGE_DIR);
  cpSync(path.join(packageDir, 'package.json'), path.join(privateDir, 'package.json'));
  cpSync(runtime.POSTGRES_PACKAGE_DIR, path.join(privateDir, 'native'), { recursive: true, verbatimSymlinks: true });
});
afterAll(() => {
  delete process.env.RUNTIME_SHARED_DIR;
  for (const dir of [privateDir, sharedDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!isRoot)('Postgres as root, from a clone in a private folder', () => {
  it('runs from a shared, reachable copy of the binaries', async () => {
    const server = await runtime.startPostgres({ binariesDir: path.join(privateDir, 'native') });
    try {
      expect(server.port).toBeGreaterThan(0);
      const { version } = JSON.parse(readFileSync(path.join(privateDir, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(existsSync(path.join(sharedDir, `postgres-${version}`, 'bin', 'postgres'))).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('refuses a kept data folder it cannot reach, naming the folder', async () => {
    await expect(
      runtime.startPostgres({ binariesDir: path.join(privateDir, 'native'), dataDir: path.join(privateDir, 'data') }),
    ).rejects.toThrow(new RegExp(`cannot enter ${privateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(mode 700\\)`));
  });

  it('keeps a reachable data folder outside, linked from where it was asked for, across restarts', async () => {
    const wanted = path.join(privateDir, 'state', 'postgres');
    const dataDir = runtime.reachableDataDir(wanted);
    expect(dataDir.startsWith(sharedDir)).toBe(true);
    expect(lstatSync(wanted).isSymbolicLink()).toBe(true);
    expect(readlinkSync(wanted)).toBe(dataDir);
    for (let run = 0; run < 2; run++) {
      const server = await runtime.startPostgres({
        binariesDir: path.join(privateDir, 'native'),
        dataDir,
        database: 'kept',
      });
      await server.stop();
    }
    expect(runtime.reachableDataDir(wanted)).toBe(dataDir);
  });
});
