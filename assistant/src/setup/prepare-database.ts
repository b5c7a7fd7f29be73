// Readying the assistant's database at every start, natively (scripts/runtime/local.ts) and in Docker (the
// assistant-setup one-shot service): the database created if missing, migrated, the installer's answers stored as
// settings (an empty answer leaves the stored setting as it is), the instance's spending caps written from theirs
// (empty: the default caps) and the jobs' caps made exactly ASSISTANT_BUDGET_JOBS, and the operator's API user_id linked with their Telegram chat.
import { Client, Pool, type PoolConfig } from 'pg';
import { applyInstanceCaps, type InstanceCap } from '../budget/instance-caps';
import { applyJobCaps, type JobCap, jobCapsFromSettings } from '../budget/job-caps';
import { applyUserCaps, type UserCap, userCapsFromSettings } from '../budget/user-caps';
import { AssistantInputError } from '../errors';
import { linkOwnerIdentities } from '../identities/link-owner';
import { dmPoliciesFromEnv, setDmPolicy } from '../people/dm-policy';
import { updateInstanceSettings } from '../settings/settings';
import { runMigrations, type MigrationResult } from '../storage/migrate';
import { enableVectorIndexFromSettings, type VectorIndexResult } from '../storage/vector-index';

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The settings (local.env / .env names) stored in assistant.instance_settings, and their fields. */
export const SETTINGS_FROM_ENV: ReadonlyArray<readonly [string, string]> = [
  ['ASSISTANT_LLM_MODEL', 'chatModel'],
  ['ASSISTANT_TELEGRAM_OWNER_CHAT_ID', 'ownerTelegramChatId'],
  ['ASSISTANT_TIME_ZONE', 'timeZone'],
  ['ASSISTANT_NAME', 'assistantName'],
  ['ASSISTANT_LOCALE', 'locale'],
  ['ASSISTANT_LANGUAGE', 'language'],
  ['ASSISTANT_STYLE', 'style'],
  ['ASSISTANT_MODEL_TIMEOUT_SECONDS', 'modelTimeoutSeconds'],
  ['ASSISTANT_REPLY_DEADLINE_SECONDS', 'replyDeadlineSeconds'],
  ['ASSISTANT_RUN_LIMIT_SECONDS', 'runLimitSeconds'],
  ['ASSISTANT_CAPTURE_IDLE_MINUTES', 'captureIdleMinutes'],
  ['ASSISTANT_MEMORY_BUDGET', 'memoryBudget'],
];

export interface PreparedAssistant {
  migration: MigrationResult;
  /** pgvector's index, when embeddings are on with ASSISTANT_EMBEDDING_DIMENSIONS (null otherwise). */
  vectorIndex: VectorIndexResult | null;
  ownerChatId: string | null;
  chatModel: string;
  /** The instance's spending caps now in force (ASSISTANT_BUDGET_*). */
  instanceCaps: InstanceCap[];
  /** The jobs' spending caps now in force (ASSISTANT_BUDGET_JOBS). */
  jobCaps: JobCap[];
  /** The users' spending caps as ASSISTANT_BUDGET_USERS set them. */
  userCaps: UserCap[];
  /** The identities linked as the owner (empty when no API user_id or no owner chat is set). */
  linkedIdentities: string[];
}

/** Creates `database` on the server if it is missing, connected through its `postgres` maintenance database. */
export async function ensureDatabase(server: PoolConfig, database: string): Promise<void> {
  if (!DATABASE_NAME.test(database)) {
    throw new AssistantInputError('database', `"${database}" must be lower-case letters, digits and _`);
  }
  const client = new Client({ ...server, database: 'postgres' });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    // Identifiers cannot be bound as parameters; the name is checked above.
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}

/**
 * The database ready for the assistant. `settings` holds the installer's answers by their env names; an invalid one
 * is an AssistantInputError naming that setting.
 */
export async function prepareAssistantDatabase(
  connection: PoolConfig & { database: string },
  settings: Record<string, string | undefined>,
): Promise<PreparedAssistant> {
  await ensureDatabase(connection, connection.database);
  const migration = await runMigrations(connection);
  const pool = new Pool({ ...connection, max: 2 });
  pool.on('error', () => undefined);
  try {
    for (const [name, field] of SETTINGS_FROM_ENV) {
      const value = settings[name]?.trim();
      if (!value) continue;
      await updateInstanceSettings(pool, { [field]: value }).catch((error: unknown) => {
        throw new AssistantInputError(name, (error as Error).message.replace(/^\w+: /, ''));
      });
    }
    // Who may talk on each channel (ASSISTANT_DM_POLICY_<CHANNEL>, ASSISTANT_DM_ALLOW_<CHANNEL>); unset: kept.
    for (const policy of dmPoliciesFromEnv(settings)) await setDmPolicy(pool, policy);
    const namedJobCaps = jobCapsFromSettings(settings); // checked before any cap is written
    const namedUserCaps = userCapsFromSettings(settings);
    const instanceCaps = await applyInstanceCaps(pool, settings);
    const jobCaps = await applyJobCaps(pool, namedJobCaps);
    const userCaps = await applyUserCaps(pool, namedUserCaps);
    const stored = await pool.query<{ owner_telegram_chat_id: string | null; chat_model: string }>(
      'SELECT owner_telegram_chat_id, chat_model FROM assistant.instance_settings',
    );
    const ownerUserId = settings.ASSISTANT_OWNER_USER_ID?.trim();
    let linkedIdentities: string[] = [];
    if (ownerUserId && stored.rows[0].owner_telegram_chat_id) {
      const linked = await linkOwnerIdentities(pool, { apiUserId: ownerUserId }).catch((error: unknown) => {
        throw new AssistantInputError('ASSISTANT_OWNER_USER_ID', (error as Error).message.replace(/^\w+: /, ''));
      });
      linkedIdentities = linked.identities;
    }
    // pgvector's index for recall by meaning, when embeddings are on and their dimension is known (else the cosine scan).
    const vectorIndex = await enableVectorIndexFromSettings(pool, settings);
    return {
      migration,
      ownerChatId: stored.rows[0].owner_telegram_chat_id,
      chatModel: stored.rows[0].chat_model,
      instanceCaps,
      jobCaps,
      userCaps,
      linkedIdentities,
      vectorIndex,
    };
  } finally {
    await pool.end();
  }
}
