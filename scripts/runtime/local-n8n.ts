// n8n of the local stack: the kept instance in .runtime/local/n8n on the local Postgres, its API key kept beside it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TELEGRAM_ENTRY_WORKFLOW_ID } from 'assistant-core';
import { SLACK_ENTRY_WORKFLOW_ID } from './local-slack';
import { ASSISTANT_DATABASE } from './local-assistant';
import { API_KEY_FILE, LOCAL_DIR, port, PRIVATE_WEBHOOK_IDS_FILE, queueMode } from './local-settings';
import type { PostgresServer } from './postgres';
import { readWorkflowFiles, startStack, WORKFLOWS_DIR, type Stack } from './stack';

/** Starts the stack with every triggered workflow but the Telegram and Slack entries activated; keeps its API key. */
export async function startLocalN8n(
  settings: Record<string, string>,
  postgres: PostgresServer,
  owner: { email: string; password: string },
  webhookBase: string | undefined,
  gateway: { url: string; key: string },
): Promise<Stack> {
  // The Telegram entry registers its webhook with Telegram when activated: only with a bot, and on its own afterwards
  // (switchTelegramEntry), so an unreachable Telegram cannot stop the rest from starting. The Slack entry alike: only
  // with the Slack app's tokens, on its own (switchSlackEntry).
  const activate = readWorkflowFiles([WORKFLOWS_DIR])
    .filter(
      (workflow) =>
        workflow.triggered && workflow.id !== TELEGRAM_ENTRY_WORKFLOW_ID && workflow.id !== SLACK_ENTRY_WORKFLOW_ID,
    )
    .map((workflow) => workflow.id);
  const stack = await startStack({
    userFolder: path.join(LOCAL_DIR, 'n8n'),
    postgres,
    port: port(settings, 'N8N_PORT'),
    encryptionKey: settings.N8N_ENCRYPTION_KEY,
    owner,
    importStateFile: path.join(LOCAL_DIR, 'imported-workflows.json'),
    privateWebhookIdsFile: PRIVATE_WEBHOOK_IDS_FILE,
    activate,
    queue: queueMode(settings),
    // The gateway local.ts started and supervises (a fixed port and key: the credentials stay valid).
    gateway: { url: gateway.url, key: gateway.key },
    // The outbound guard keeps the judge out of reach of every fetch the assistant makes.
    env: {
      ASSISTANT_JUDGE_URL: `http://127.0.0.1:${settings.JUDGE_PORT}`,
      // The email channel's own address (the From of its emails; its own mail never answered).
      ...(settings.ASSISTANT_EMAIL_ADDRESS ? { ASSISTANT_EMAIL_ADDRESS: settings.ASSISTANT_EMAIL_ADDRESS } : {}),
      ...(webhookBase ? { WEBHOOK_URL: webhookBase } : {}),
    },
    apiKey:
      settings.N8N_API_KEY?.trim() ||
      (existsSync(API_KEY_FILE) ? readFileSync(API_KEY_FILE, 'utf8').trim() : undefined),
    credentialEnv: {
      ...settings,
      SYSTEMONE_JUDGE_URL: `http://127.0.0.1:${settings.JUDGE_PORT}`,
      ASSISTANT_PG_HOST: '127.0.0.1',
      ASSISTANT_PG_PORT: String(postgres.port),
      ASSISTANT_PG_DATABASE: ASSISTANT_DATABASE,
      ASSISTANT_PG_USER: postgres.user,
      ASSISTANT_PG_PASSWORD: settings.POSTGRES_PASSWORD,
    },
    log: (line) => console.log(line),
  });
  writeFileSync(API_KEY_FILE, stack.apiKey, { mode: 0o600 });
  return stack;
}
