// The migration runner on a real Postgres 17: the schema and its version table, concurrent runs, a migration on an
// existing database, a failing migration rolled back.
import { describe, expect, it } from 'vitest';
import { Pool } from 'pg';
import * as assistant from '../../src';
import { createDatabase } from '../../../scripts/runtime/postgres';
import { useAssistantDatabase } from '../database';

const db = useAssistantDatabase();

describe('migrations', () => {
  it('creates the assistant schema with a version table, and a re-run applies nothing', async () => {
    const tables = await db.pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'assistant' ORDER BY 1`,
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'schema_migrations',
        'users',
        'identities',
        'memories',
        'entities',
        'relations',
        'tasks',
        'turns',
        'instance_settings',
        'user_settings',
      ]),
    );
    const again = await assistant.runMigrations(db.server.url);
    expect(again).toEqual({ applied: [], current: assistant.migrations.at(-1)!.version });
    const versions = await db.pool.query('SELECT version FROM assistant.schema_migrations ORDER BY version');
    expect(versions.rows.map((r) => r.version)).toEqual(assistant.migrations.map((m) => m.version));
  });

  it('is safe to run concurrently on a fresh database: each migration is applied exactly once', async () => {
    await createDatabase(db.server.url, 'concurrent_migrations');
    const url = db.server.url.replace(/\/assistant_test$/, '/concurrent_migrations');
    const results = await Promise.all([1, 2, 3, 4].map(() => assistant.runMigrations(url)));
    const applied = results.flatMap((r) => r.applied).sort((a, b) => a - b);
    expect(applied).toEqual(assistant.migrations.map((m) => m.version));
    expect(results.every((r) => r.current === assistant.migrations.at(-1)!.version)).toBe(true);
  });

  it('adds the locale and the urgent nudges interval to an existing database, keeping its settings', async () => {
    await createDatabase(db.server.url, 'before_locale');
    const url = db.server.url.replace(/\/assistant_test$/, '/before_locale');
    const before = assistant.migrations.filter((m) => m.version < 13);
    await assistant.runMigrations(url, before);
    const existing = new Pool({ connectionString: url, max: 1 });
    existing.on('error', () => undefined);
    try {
      await existing.query("UPDATE assistant.instance_settings SET time_zone = 'Europe/Vienna', language = 'german'");
      const user = await assistant.resolveIdentity(existing, 'api', 'before-locale');
      await existing.query("INSERT INTO assistant.user_settings (user_id, time_zone) VALUES ($1, 'Asia/Tokyo')", [
        user.userId,
      ]);
      const after = assistant.migrations.filter((m) => m.version >= 13).map((m) => m.version);
      expect(await assistant.runMigrations(url)).toEqual({ applied: after, current: after.at(-1) });
      expect(await assistant.getInstanceSettings(existing)).toMatchObject({
        timeZone: 'Europe/Vienna',
        language: 'german',
        locale: 'en',
        urgentNudgeHours: 24,
      });
      expect(await assistant.getUserSettings(existing, user.userId)).toMatchObject({
        timeZone: 'Asia/Tokyo',
        locale: 'en',
      });
      const own = await existing.query('SELECT locale FROM assistant.user_settings WHERE user_id = $1', [user.userId]);
      expect(own.rows[0].locale).toBeNull();
    } finally {
      await existing.end();
    }
  });

  it('adds the model timeout, and moves a reply deadline left at the old default (120 s) to the new one', async () => {
    const before = assistant.migrations.filter((m) => m.version < 15);
    for (const [name, stored, expected] of [
      ['before_timeouts_default', 120, 600],
      ['before_timeouts_chosen', 45, 45],
    ] as const) {
      await createDatabase(db.server.url, name);
      const url = db.server.url.replace(/\/assistant_test$/, `/${name}`);
      await assistant.runMigrations(url, before);
      const existing = new Pool({ connectionString: url, max: 1 });
      existing.on('error', () => undefined);
      try {
        await existing.query('UPDATE assistant.instance_settings SET reply_deadline_seconds = $1', [stored]);
        await assistant.runMigrations(url);
        expect(await assistant.getInstanceSettings(existing)).toMatchObject({
          replyDeadlineSeconds: expected,
          modelTimeoutSeconds: 300,
        });
        await expect(
          existing.query('UPDATE assistant.instance_settings SET reply_deadline_seconds = 901'),
        ).rejects.toThrow(/check constraint/);
      } finally {
        await existing.end();
      }
    }
  });

  it('rolls a failing migration back entirely and reports it', async () => {
    await createDatabase(db.server.url, 'failing_migration');
    const url = db.server.url.replace(/\/assistant_test$/, '/failing_migration');
    const broken = [
      ...assistant.migrations,
      { version: 999, name: 'broken', sql: 'CREATE TABLE assistant.half_done (x int); SELECT no_such_function();' },
    ];
    await expect(assistant.runMigrations(url, broken)).rejects.toThrow(/migration 999 \(broken\) failed/);
    const check = new Pool({ connectionString: url, max: 1 });
    check.on('error', () => undefined);
    try {
      const half = await check.query(`SELECT to_regclass('assistant.half_done') AS t`);
      expect(half.rows[0].t).toBeNull();
      const versions = await check.query('SELECT max(version) AS v FROM assistant.schema_migrations');
      expect(versions.rows[0].v).toBe(assistant.migrations.at(-1)!.version);
    } finally {
      await check.end();
    }
  });
});
