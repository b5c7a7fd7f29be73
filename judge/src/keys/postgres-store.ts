// Keys and usage in Postgres, so that judge replicas share them: schema `systemone_judge`, created and migrated on
// open (idempotent, serialised by an advisory lock, so replicas may start together). Every value is a parameter.
import { Pool, type PoolClient } from 'pg';
import { applyMigrations, type Migration } from '../storage/migrations';
import { minuteStart, monthStart, utcDay } from './time';
import {
  KeyStoreError,
  type KeyRecord,
  type KeyState,
  type KeyStore,
  type UsageIncrement,
  type UsageQuery,
  type UpstreamTokens,
  type UsageRow,
  addUpstreamTokens,
  noUpstreamTokens,
} from './types';

export const KEYS_SCHEMA = 'systemone_judge';
/** Arbitrary constant: the advisory lock serialising migrations of this schema. */
const MIGRATION_LOCK_KEY = 727_311_906;
/** Per-minute counters older than this are deleted as usage is written. */
const MINUTE_ROWS_KEPT_MS = 10 * 60_000;

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'keys and usage',
    sql: `
      CREATE TABLE ${KEYS_SCHEMA}.api_keys (
        id text PRIMARY KEY,
        name text NOT NULL,
        hash text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        rate_per_second double precision,
        tokens_per_minute bigint,
        monthly_tokens bigint
      );
      CREATE UNIQUE INDEX api_keys_active_name ON ${KEYS_SCHEMA}.api_keys (name) WHERE revoked_at IS NULL;
      CREATE TABLE ${KEYS_SCHEMA}.usage_daily (
        key_id text NOT NULL,
        day date NOT NULL,
        requests bigint NOT NULL,
        input_tokens bigint NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      CREATE TABLE ${KEYS_SCHEMA}.usage_minute (
        key_id text NOT NULL,
        minute timestamptz NOT NULL,
        input_tokens bigint NOT NULL,
        PRIMARY KEY (key_id, minute)
      );
      CREATE INDEX usage_minute_minute ON ${KEYS_SCHEMA}.usage_minute (minute);`,
  },
  {
    version: 2,
    name: 'upstream tokens',
    // What the upstream model server reported (prompt, of which cached, and output tokens), apart from the judge's
    // own metered input_tokens; upstream_calls_recorded marks the days that recorded any (older rows have none).
    sql: `
      ALTER TABLE ${KEYS_SCHEMA}.usage_daily
        ADD COLUMN upstream_calls_recorded boolean NOT NULL DEFAULT false,
        ADD COLUMN upstream_prompt_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN upstream_cached_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN upstream_output_tokens bigint NOT NULL DEFAULT 0;`,
  },
];

/** Creates the schema and applies missing migrations; safe to run from several processes at once. */
export async function migrateKeyStore(client: PoolClient): Promise<number[]> {
  const result = await applyMigrations(client, {
    schema: KEYS_SCHEMA,
    lockKey: MIGRATION_LOCK_KEY,
    label: 'key store',
    migrations: MIGRATIONS,
  });
  return result.applied;
}

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
  rate_per_second: number | null;
  tokens_per_minute: string | null;
  monthly_tokens: string | null;
}

const KEY_COLUMNS = 'id, name, hash, created_at, revoked_at, rate_per_second, tokens_per_minute, monthly_tokens';

function toRecord(row: KeyRow): KeyRecord {
  const record: KeyRecord = {
    id: row.id,
    name: row.name,
    hash: row.hash,
    createdAt: row.created_at.toISOString(),
    limits: {},
  };
  if (row.revoked_at) record.revokedAt = row.revoked_at.toISOString();
  if (row.rate_per_second !== null) record.limits.ratePerSecond = row.rate_per_second;
  if (row.tokens_per_minute !== null) record.limits.tokensPerMinute = Number(row.tokens_per_minute);
  if (row.monthly_tokens !== null) record.limits.monthlyTokens = Number(row.monthly_tokens);
  return record;
}

interface UsageDailyRow {
  key_id: string;
  day: string;
  requests: string;
  input_tokens: string;
  upstream_calls_recorded: boolean;
  upstream_prompt_tokens: string;
  upstream_cached_tokens: string;
  upstream_output_tokens: string;
}

function toUsageRow(r: UsageDailyRow): UsageRow {
  const row: UsageRow = {
    keyId: r.key_id,
    day: r.day,
    requests: Number(r.requests),
    inputTokens: Number(r.input_tokens),
  };
  if (r.upstream_calls_recorded) {
    row.upstream = {
      promptTokens: Number(r.upstream_prompt_tokens),
      cachedTokens: Number(r.upstream_cached_tokens),
      outputTokens: Number(r.upstream_output_tokens),
    };
  }
  return row;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class PostgresKeyStore implements KeyStore {
  readonly kind = 'postgres';

  private constructor(private readonly pool: Pool) {}

  /** Connects, then creates or migrates the schema. */
  static async open(url: string, options: { poolSize?: number } = {}): Promise<PostgresKeyStore> {
    const pool = new Pool({ connectionString: url, max: options.poolSize ?? 4 });
    // An idle connection dropped by the server must not crash the process; the next query reports the problem.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrateKeyStore(client);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end();
      throw new KeyStoreError(`The key database is not usable: ${(error as Error).message}`);
    }
    return new PostgresKeyStore(pool);
  }

  async addKey(record: KeyRecord): Promise<void> {
    try {
      await this.pool.query(
        `INSERT INTO ${KEYS_SCHEMA}.api_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          record.id,
          record.name,
          record.hash,
          record.createdAt,
          record.revokedAt ?? null,
          record.limits.ratePerSecond ?? null,
          record.limits.tokensPerMinute ?? null,
          record.limits.monthlyTokens ?? null,
        ],
      );
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === '23505' && constraint === 'api_keys_active_name') {
        throw new KeyStoreError(`An active key is already named ${JSON.stringify(record.name)}.`);
      }
      if (code === '23505') throw new KeyStoreError(`A key with id ${record.id} already exists.`);
      throw error;
    }
  }

  async listKeys(): Promise<KeyRecord[]> {
    const result = await this.pool.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM ${KEYS_SCHEMA}.api_keys ORDER BY created_at, id`,
    );
    return result.rows.map(toRecord);
  }

  async revokeKey(id: string, at: Date): Promise<KeyRecord | undefined> {
    const result = await this.pool.query<KeyRow>(
      `UPDATE ${KEYS_SCHEMA}.api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id, at],
    );
    return result.rows[0] && toRecord(result.rows[0]);
  }

  async lookup(id: string, at: Date): Promise<KeyState | undefined> {
    const ms = at.getTime();
    const result = await this.pool.query<KeyRow & { month_tokens: string; minute_tokens: string }>(
      `SELECT ${KEY_COLUMNS},
         (SELECT coalesce(sum(u.input_tokens), 0) FROM ${KEYS_SCHEMA}.usage_daily u
           WHERE u.key_id = k.id AND u.day >= $2::date AND u.day <= $3::date) AS month_tokens,
         (SELECT coalesce(sum(m.input_tokens), 0) FROM ${KEYS_SCHEMA}.usage_minute m
           WHERE m.key_id = k.id AND m.minute = $4) AS minute_tokens
       FROM ${KEYS_SCHEMA}.api_keys k WHERE k.id = $1`,
      [id, utcDay(monthStart(ms)), utcDay(ms), new Date(minuteStart(ms))],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return { record: toRecord(row), monthTokens: Number(row.month_tokens), minuteTokens: Number(row.minute_tokens) };
  }

  async addUsage(increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    // One row per (key, day) and per (key, minute): ON CONFLICT may not touch a row twice in one statement.
    const days = new Map<string, UsageRow & { upstream: UpstreamTokens; recorded: boolean }>();
    const minutes = new Map<string, { keyId: string; minute: number; inputTokens: number }>();
    for (const inc of increments) {
      const day = utcDay(inc.minute);
      const d = days.get(`${inc.keyId} ${day}`) ?? {
        keyId: inc.keyId,
        day,
        requests: 0,
        inputTokens: 0,
        upstream: noUpstreamTokens(),
        recorded: false,
      };
      d.requests += inc.requests;
      d.inputTokens += inc.inputTokens;
      if (inc.upstream) {
        addUpstreamTokens(d.upstream, inc.upstream);
        d.recorded = true;
      }
      days.set(`${inc.keyId} ${day}`, d);
      const m = minutes.get(`${inc.keyId} ${inc.minute}`) ?? { keyId: inc.keyId, minute: inc.minute, inputTokens: 0 };
      m.inputTokens += inc.inputTokens;
      minutes.set(`${inc.keyId} ${inc.minute}`, m);
    }
    // Rows in one order in every replica, so that concurrent upserts lock them in the same order (no deadlock).
    const dayRows = [...days.values()].sort((a, b) => compare(a.keyId, b.keyId) || compare(a.day, b.day));
    const minuteRows = [...minutes.values()].sort((a, b) => compare(a.keyId, b.keyId) || a.minute - b.minute);
    const latest = Math.max(...minuteRows.map((m) => m.minute));
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ${KEYS_SCHEMA}.usage_daily (key_id, day, requests, input_tokens, upstream_calls_recorded,
           upstream_prompt_tokens, upstream_cached_tokens, upstream_output_tokens)
         SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::boolean[], $6::bigint[],
           $7::bigint[], $8::bigint[])
         ON CONFLICT (key_id, day) DO UPDATE SET
           requests = usage_daily.requests + EXCLUDED.requests,
           input_tokens = usage_daily.input_tokens + EXCLUDED.input_tokens,
           upstream_calls_recorded = usage_daily.upstream_calls_recorded OR EXCLUDED.upstream_calls_recorded,
           upstream_prompt_tokens = usage_daily.upstream_prompt_tokens + EXCLUDED.upstream_prompt_tokens,
           upstream_cached_tokens = usage_daily.upstream_cached_tokens + EXCLUDED.upstream_cached_tokens,
           upstream_output_tokens = usage_daily.upstream_output_tokens + EXCLUDED.upstream_output_tokens`,
        [
          dayRows.map((d) => d.keyId),
          dayRows.map((d) => d.day),
          dayRows.map((d) => d.requests),
          dayRows.map((d) => d.inputTokens),
          dayRows.map((d) => d.recorded),
          dayRows.map((d) => d.upstream.promptTokens),
          dayRows.map((d) => d.upstream.cachedTokens),
          dayRows.map((d) => d.upstream.outputTokens),
        ],
      );
      await client.query(
        `INSERT INTO ${KEYS_SCHEMA}.usage_minute (key_id, minute, input_tokens)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[])
         ON CONFLICT (key_id, minute) DO UPDATE SET input_tokens = usage_minute.input_tokens + EXCLUDED.input_tokens`,
        [
          minuteRows.map((m) => m.keyId),
          minuteRows.map((m) => new Date(m.minute)),
          minuteRows.map((m) => m.inputTokens),
        ],
      );
      await client.query(`DELETE FROM ${KEYS_SCHEMA}.usage_minute WHERE minute < $1`, [
        new Date(latest - MINUTE_ROWS_KEPT_MS),
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const result = await this.pool.query<UsageDailyRow>(
      `SELECT key_id, to_char(day, 'YYYY-MM-DD') AS day, requests, input_tokens, upstream_calls_recorded,
         upstream_prompt_tokens, upstream_cached_tokens, upstream_output_tokens FROM ${KEYS_SCHEMA}.usage_daily
       WHERE day >= $1::date AND day <= $2::date AND ($3::text IS NULL OR key_id = $3)
       ORDER BY day, key_id`,
      [query.from, query.to, query.keyId ?? null],
    );
    return result.rows.map(toUsageRow);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
