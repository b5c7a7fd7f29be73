// Readying the assistant's database as both installs do at start, on a real Postgres 17: created when missing,
// migrated, the answers stored, the instance's spending caps written, the owner linked; a re-run changes nothing; a
// bad answer is named.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../../scripts/runtime/postgres';
import { listCaps } from '../../src/budget/caps';
import { getDmPolicy } from '../../src/people';
import { ensureDatabase, prepareAssistantDatabase } from '../../src/setup';

let server: PostgresServer;
let connection: { host: string; port: number; user: string; password?: string; database: string };

beforeAll(async () => {
  server = await startPostgres({ database: 'postgres_only' });
  connection = {
    host: '127.0.0.1',
    port: server.port,
    user: server.user,
    password: server.password,
    database: 'assistant',
  };
});
afterAll(async () => server?.stop());

describe('prepareAssistantDatabase', () => {
  it('creates and migrates the database, stores the answers and links the owner; a re-run applies nothing', async () => {
    const answers = {
      ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
      ASSISTANT_TELEGRAM_OWNER_CHAT_ID: '4242001',
      ASSISTANT_OWNER_USER_ID: 'owner',
      ASSISTANT_TIME_ZONE: 'Europe/Berlin',
      ASSISTANT_NAME: 'Dockerbot',
      ASSISTANT_LOCALE: 'de-AT',
      ASSISTANT_LANGUAGE: 'german',
      ASSISTANT_STYLE: '',
    };
    const first = await prepareAssistantDatabase(connection, answers);
    expect(first.migration.applied.length).toBeGreaterThan(0);
    expect(first).toMatchObject({ ownerChatId: '4242001', chatModel: 'gpt-4o-mini' });
    expect(first.linkedIdentities.sort()).toEqual(['api:owner', 'telegram:4242001']);
    const pool = new Pool({ ...connection, max: 1 });
    try {
      const settings = await pool.query('SELECT * FROM assistant.instance_settings');
      expect(settings.rows[0]).toMatchObject({
        time_zone: 'Europe/Berlin',
        assistant_name: 'Dockerbot',
        language: 'german',
        locale: 'de-AT',
      });
    } finally {
      await pool.end();
    }
    const again = await prepareAssistantDatabase(connection, { ...answers, ASSISTANT_LLM_MODEL: '' });
    expect(again.migration.applied).toEqual([]);
    // An empty answer leaves the stored setting as it is.
    expect(again.chatModel).toBe('gpt-4o-mini');
  });

  it('stores the DM policy setup asked for; a bad one names its variable; unset keeps the stored one', async () => {
    await prepareAssistantDatabase(connection, {
      ASSISTANT_DM_POLICY_TELEGRAM: 'allowlist',
      ASSISTANT_DM_ALLOW_TELEGRAM: '5,6',
    });
    const pool = new Pool({ ...connection, max: 1 });
    try {
      expect(await getDmPolicy(pool, 'telegram')).toEqual({ policy: 'allowlist', allow: ['5', '6'] });
      await prepareAssistantDatabase(connection, {});
      expect((await getDmPolicy(pool, 'telegram')).policy).toBe('allowlist');
      await expect(prepareAssistantDatabase(connection, { ASSISTANT_DM_POLICY_TELEGRAM: 'anyone' })).rejects.toThrow(
        /^ASSISTANT_DM_POLICY_TELEGRAM: /,
      );
      await prepareAssistantDatabase(connection, { ASSISTANT_DM_POLICY_TELEGRAM: 'owner' });
      expect(await getDmPolicy(pool, 'telegram')).toEqual({ policy: 'owner', allow: [] });
    } finally {
      await pool.end();
    }
  });

  it("tries pgvector's index when embeddings are on with a size: without the extension it says so; off, nothing", async () => {
    const off = await prepareAssistantDatabase(connection, { ASSISTANT_EMBEDDINGS_MODEL: 'off' });
    expect(off.vectorIndex).toBeNull();
    const on = await prepareAssistantDatabase(connection, {
      ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      ASSISTANT_EMBEDDING_DIMENSIONS: '1536',
    });
    // The embedded Postgres 17 has no vector extension: recall by meaning keeps the cosine scan.
    expect(on.vectorIndex).toMatchObject({ pgvector: false, reason: expect.stringContaining('vector extension') });
    await expect(
      prepareAssistantDatabase(connection, {
        ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
        ASSISTANT_EMBEDDING_DIMENSIONS: 'many',
      }),
    ).rejects.toMatchObject({ field: 'ASSISTANT_EMBEDDING_DIMENSIONS' });
  });

  it('stores the model timeout, the reply deadline and the run limit; unset, the defaults a model on a CPU meets stay', async () => {
    const readTimes = async () => {
      const pool = new Pool({ ...connection, max: 1 });
      try {
        const found = await pool.query(
          `SELECT model_timeout_seconds, reply_deadline_seconds, run_limit_seconds, capture_idle_minutes,
                  memory_budget
             FROM assistant.instance_settings`,
        );
        return found.rows[0];
      } finally {
        await pool.end();
      }
    };
    await prepareAssistantDatabase(connection, {
      ASSISTANT_MODEL_TIMEOUT_SECONDS: '',
      ASSISTANT_REPLY_DEADLINE_SECONDS: '',
      ASSISTANT_RUN_LIMIT_SECONDS: '',
      ASSISTANT_CAPTURE_IDLE_MINUTES: '',
      ASSISTANT_MEMORY_BUDGET: '',
    });
    expect(await readTimes()).toEqual({
      model_timeout_seconds: 300,
      reply_deadline_seconds: 600,
      run_limit_seconds: 1800,
      capture_idle_minutes: 5,
      memory_budget: 2000,
    });
    await prepareAssistantDatabase(connection, {
      ASSISTANT_MODEL_TIMEOUT_SECONDS: '480',
      ASSISTANT_REPLY_DEADLINE_SECONDS: '900',
      ASSISTANT_RUN_LIMIT_SECONDS: '600',
      ASSISTANT_CAPTURE_IDLE_MINUTES: '0',
      ASSISTANT_MEMORY_BUDGET: '0',
    });
    expect(await readTimes()).toEqual({
      model_timeout_seconds: 480,
      reply_deadline_seconds: 900,
      run_limit_seconds: 600,
      capture_idle_minutes: 0,
      memory_budget: 0,
    });
    await prepareAssistantDatabase(connection, {
      ASSISTANT_MODEL_TIMEOUT_SECONDS: '300',
      ASSISTANT_REPLY_DEADLINE_SECONDS: '600',
      ASSISTANT_RUN_LIMIT_SECONDS: '1800',
      ASSISTANT_CAPTURE_IDLE_MINUTES: '5',
      ASSISTANT_MEMORY_BUDGET: '2000',
    });
  });

  it("writes the instance's spending caps from the settings: the defaults unset, replaced on a re-run, off none", async () => {
    const instanceCaps = async () => {
      const pool = new Pool({ ...connection, max: 1 });
      try {
        return (await listCaps(pool))
          .filter((cap) => cap.scope === 'instance')
          .map(({ period, limitUsd, limitTokens }) => ({ period, limitUsd, limitTokens }))
          .sort((a, b) => a.period.localeCompare(b.period));
      } finally {
        await pool.end();
      }
    };
    const defaults = [
      { period: 'day', limitUsd: 1, limitTokens: null },
      { period: 'month', limitUsd: 20, limitTokens: null },
    ];
    expect((await prepareAssistantDatabase(connection, {})).instanceCaps).toEqual(defaults);
    expect(await instanceCaps()).toEqual(defaults);
    const set = await prepareAssistantDatabase(connection, {
      ASSISTANT_BUDGET_DAY_USD: '2.5',
      ASSISTANT_BUDGET_MONTH_USD: 'off',
      ASSISTANT_BUDGET_MONTH_TOKENS: '5000000',
    });
    const written = [
      { period: 'day', limitUsd: 2.5, limitTokens: null },
      { period: 'month', limitUsd: null, limitTokens: 5_000_000 },
    ];
    expect(set.instanceCaps).toEqual(written);
    expect(await instanceCaps()).toEqual(written);
    // Off in money and tokens: no daily cap at all; 0 is a real cap of zero.
    await prepareAssistantDatabase(connection, { ASSISTANT_BUDGET_DAY_USD: 'off', ASSISTANT_BUDGET_MONTH_USD: '0' });
    expect(await instanceCaps()).toEqual([{ period: 'month', limitUsd: 0, limitTokens: null }]);
    // A bad value is named and nothing is written, not even the good daily cap beside it.
    await expect(
      prepareAssistantDatabase(connection, { ASSISTANT_BUDGET_DAY_USD: '5', ASSISTANT_BUDGET_MONTH_USD: 'lots' }),
    ).rejects.toThrow(/^ASSISTANT_BUDGET_MONTH_USD: "lots" is not an amount in US dollars/);
    await expect(prepareAssistantDatabase(connection, { ASSISTANT_BUDGET_DAY_TOKENS: '-1' })).rejects.toThrow(
      /^ASSISTANT_BUDGET_DAY_TOKENS: "-1" is not a number of tokens/,
    );
    expect(await instanceCaps()).toEqual([{ period: 'month', limitUsd: 0, limitTokens: null }]);
    // Unset again: the defaults are back.
    await prepareAssistantDatabase(connection, {});
    expect(await instanceCaps()).toEqual(defaults);
  });

  it("makes the jobs' spending caps exactly ASSISTANT_BUDGET_JOBS; a bad entry named, no cap written", async () => {
    const jobCaps = async () => {
      const pool = new Pool({ ...connection, max: 1 });
      try {
        return (await listCaps(pool))
          .filter((cap) => cap.scope === 'job')
          .map(({ job, period, limitUsd, limitTokens }) => ({ job, period, limitUsd, limitTokens }));
      } finally {
        await pool.end();
      }
    };
    const set = await prepareAssistantDatabase(connection, {
      ASSISTANT_BUDGET_JOBS: 'heartbeat=0.20/day, judge=50000tok/day',
    });
    const written = [
      { job: 'heartbeat', period: 'day', limitUsd: 0.2, limitTokens: null },
      { job: 'judge', period: 'day', limitUsd: null, limitTokens: 50_000 },
    ];
    expect(set.jobCaps).toEqual(written);
    expect(await jobCaps()).toEqual(written);
    await expect(
      prepareAssistantDatabase(connection, { ASSISTANT_BUDGET_DAY_USD: '7', ASSISTANT_BUDGET_JOBS: 'judge=lots/day' }),
    ).rejects.toThrow(/^ASSISTANT_BUDGET_JOBS: "judge=lots\/day" has no limit/);
    expect(await jobCaps()).toEqual(written);
    const instanceDay = async () => {
      const pool = new Pool({ ...connection, max: 1 });
      try {
        return (await listCaps(pool)).find((cap) => cap.scope === 'instance' && cap.period === 'day')?.limitUsd;
      } finally {
        await pool.end();
      }
    };
    expect(await instanceDay()).toBe(1);
    expect((await prepareAssistantDatabase(connection, {})).jobCaps).toEqual([]);
    expect(await jobCaps()).toEqual([]);
  });

  it('names a bad answer and a bad database name', async () => {
    await expect(prepareAssistantDatabase(connection, { ASSISTANT_TIME_ZONE: 'Mars/Olympus' })).rejects.toThrow(
      /^ASSISTANT_TIME_ZONE: /,
    );
    await expect(prepareAssistantDatabase(connection, { ASSISTANT_LOCALE: 'Deutsch' })).rejects.toThrow(
      /^ASSISTANT_LOCALE: /,
    );
    await expect(
      prepareAssistantDatabase(connection, { ASSISTANT_MODEL_TIMEOUT_SECONDS: '5 minutes' }),
    ).rejects.toThrow(/^ASSISTANT_MODEL_TIMEOUT_SECONDS: must be an integer from 10 to 600$/);
    await expect(prepareAssistantDatabase(connection, { ASSISTANT_REPLY_DEADLINE_SECONDS: '3600' })).rejects.toThrow(
      /^ASSISTANT_REPLY_DEADLINE_SECONDS: must be an integer from 1 to 900$/,
    );
    await expect(prepareAssistantDatabase(connection, { ASSISTANT_RUN_LIMIT_SECONDS: '3600' })).rejects.toThrow(
      /^ASSISTANT_RUN_LIMIT_SECONDS: must be an integer from 10 to 1800$/,
    );
    await expect(ensureDatabase(connection, 'Robert"); DROP')).rejects.toThrow(/database: .* must be lower-case/);
  });
});
