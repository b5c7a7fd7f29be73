// scripts/backup.sh and restore.sh as a round trip on a real Postgres 17 state: a row and local.env's secrets
// backed up (the archive mode 600), lost, restored, and read again by a Postgres started on the restored folder;
// both refuse while the stack runs, and name bad input. The state before a restore is kept, never deleted.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres } from '../../scripts/runtime/postgres';

let root: string;
let state: string;

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const script = (name: string, args: string[]) =>
  spawnSync('bash', [path.join('scripts', name), ...args], { encoding: 'utf8' });

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'backup-'));
  // Postgres runs as its own user when the tests run as root: it must reach the data folder.
  chmodSync(root, 0o755);
  state = path.join(root, 'state');
  execFileSync('mkdir', ['-m', '0755', state]);
  writeFileSync(path.join(state, 'local.env'), 'N8N_ENCRYPTION_KEY=backup-test-encryption-key\n', { mode: 0o600 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('scripts/backup.sh and restore.sh', () => {
  it('round-trips the database and local.env, refusing while Postgres runs', async () => {
    const dataDir = path.join(state, 'postgres');
    let postgres = await startPostgres({ dataDir, database: 'n8n' });
    const archive = path.join(root, 'backup.tar.gz');
    try {
      await query(postgres.url, 'CREATE TABLE kept (note text)');
      await query(postgres.url, 'INSERT INTO kept VALUES ($1)', ['the operator said yes']);
      const refused = script('backup.sh', ['--state', state, '--out', archive]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/the stack is running on .*: stop it first/);
    } finally {
      await postgres.stop();
    }

    const made = script('backup.sh', ['--state', state, '--out', archive]);
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^backup: .*backup\.tar\.gz \(.+\): the database, n8n's user folder and local\.env/);
    expect(statSync(archive).mode & 0o777).toBe(0o600);

    // Lost: the data and the secrets.
    rmSync(state, { recursive: true, force: true });
    execFileSync('mkdir', ['-m', '0755', state]);
    writeFileSync(path.join(state, 'local.env'), 'N8N_ENCRYPTION_KEY=a-new-wrong-key\n');

    const restored = script('restore.sh', ['--state', state, archive]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^restored .* \(the state before is kept in .*\.before-restore-/);
    expect(readFileSync(path.join(state, 'local.env'), 'utf8')).toBe('N8N_ENCRYPTION_KEY=backup-test-encryption-key\n');
    const kept = readdirSync(root).find((entry) => entry.startsWith('state.before-restore-'));
    expect(readFileSync(path.join(root, kept!, 'local.env'), 'utf8')).toContain('a-new-wrong-key');

    postgres = await startPostgres({ dataDir, database: 'n8n' });
    try {
      expect(await query(postgres.url, 'SELECT note FROM kept')).toEqual([{ note: 'the operator said yes' }]);
      const busy = script('restore.sh', ['--state', state, archive]);
      expect(busy.status).toBe(1);
      expect(busy.stderr).toMatch(/the stack is running/);
    } finally {
      await postgres.stop();
    }
  });

  it('names bad input', () => {
    expect(script('backup.sh', ['--state', path.join(root, 'nowhere')]).stderr).toMatch(
      /--state: no install in .*nowhere/,
    );
    expect(script('backup.sh', ['--bogus']).status).toBe(2);
    expect(script('restore.sh', ['--state', state]).stderr).toMatch(/give the backup file/);
    const notBackup = path.join(root, 'not-a-backup.tar.gz');
    const other = path.join(root, 'other');
    execFileSync('mkdir', [other]);
    writeFileSync(path.join(other, 'notes.txt'), 'not an install');
    execFileSync('tar', ['-czf', notBackup, '-C', other, '.']);
    expect(existsSync(notBackup)).toBe(true);
    expect(script('restore.sh', ['--state', state, notBackup]).stderr).toMatch(/is not a backup of an install/);
  });
});
