// The assistant's side of the local stack: its database on the local Postgres, and whether its chat model answers.
import type { PoolConfig } from 'pg';
import {
  AssistantInputError,
  describeInstanceCaps,
  describeJobCaps,
  describeUserCaps,
  prepareAssistantDatabase,
} from 'assistant-core';
import { describe as describeMigration } from '../migrate';
import { settingError } from './local-settings';
import type { PostgresServer } from './postgres';

/** The assistant's tables live in their own database of the local Postgres (schema `assistant`). */
export const ASSISTANT_DATABASE = 'assistant';

/**
 * The assistant's database on the local Postgres: created if missing, migrated, and the settings given in local.env
 * (chat model, owner's Telegram chat id) stored; an empty value leaves the stored setting as it is. The instance's
 * spending caps written from ASSISTANT_BUDGET_* (empty: the default caps), the jobs' from ASSISTANT_BUDGET_JOBS.
 */
export async function prepareAssistant(
  postgres: PostgresServer,
  settings: Record<string, string>,
): Promise<{ connection: PoolConfig; ownerChatId: string | null; chatModel: string }> {
  const connection = {
    host: '127.0.0.1',
    port: postgres.port,
    user: postgres.user,
    password: postgres.password,
    database: ASSISTANT_DATABASE,
  };
  const prepared = await prepareAssistantDatabase(connection, settings).catch((error: unknown) => {
    throw error instanceof AssistantInputError ? settingError(error.field, new Error(error.reason)) : error;
  });
  console.log(describeMigration(prepared.migration));
  if (prepared.linkedIdentities.length > 0)
    console.log(`owner: ${prepared.linkedIdentities.join(' and ')} are one user`);
  console.log(describeInstanceCaps(prepared.instanceCaps));
  console.log(describeJobCaps(prepared.jobCaps));
  console.log(describeUserCaps(prepared.userCaps));
  return { connection, ownerChatId: prepared.ownerChatId, chatModel: prepared.chatModel };
}

export type PreparedAssistant = Awaited<ReturnType<typeof prepareAssistant>>;

/** Whether the chat model's server answers at all (a hint at start, never fatal). */
export async function llmReachable(settings: Record<string, string>): Promise<boolean> {
  try {
    const response = await fetch(`${settings.ASSISTANT_LLM_BASE_URL.replace(/\/+$/, '')}/models`, {
      headers: { authorization: `Bearer ${settings.ASSISTANT_LLM_API_KEY}` },
      signal: AbortSignal.timeout(3000),
    });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}
