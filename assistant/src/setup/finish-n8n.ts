// What can only be done once n8n runs, in Docker (the assistant-setup one-shot service): the installation's n8n API
// key (reused while n8n accepts it) written into the "n8n API" credential, and the Telegram entry switched on when a
// bot is set up, with the self-signed certificate uploaded when there is no domain. The native stack does the same
// steps in scripts/runtime/stack.ts and local.ts.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { registerTelegramWebhook, telegramWebhookRegistration, type TelegramEntryWorkflow } from '../channel';
import { ownerApiKey } from '../n8n/owner-api-key';

/** The "n8n API" credential the workflows use (experts, tool building, forgetting a user's executions). */
export const N8N_API_CREDENTIAL_ID = 'asstN8nApi000001';
export const TELEGRAM_ENTRY_WORKFLOW_ID = 'assistantTelegrm';
/** The email entry (workflows/assistant-email.json): its IMAP trigger is switched on only with a mailbox set up. */
export const EMAIL_ENTRY_WORKFLOW_ID = 'assistantEmail01';

export interface FinishN8nOptions {
  /** n8n as this process reaches it, e.g. http://n8n:5678. */
  n8nUrl: string;
  owner: { email: string; password: string };
  /** Where the API key is kept between runs (mode 600). */
  apiKeyFile: string;
  /** The API key the operator gave, if any (used while n8n accepts it). */
  givenApiKey?: string;
  /**
   * The workflows the import step left to switch on (a JSON array of ids, written by import-into-n8n.js); removed
   * once they all are.
   */
  activateListFile?: string;
  telegram?: {
    botToken: string;
    apiBaseUrl: string;
    /** n8n's public base URL (WEBHOOK_URL), required for the certificate upload. */
    webhookBaseUrl?: string;
    /** The self-signed certificate (PEM file) to upload, without a domain. */
    certificateFile?: string;
  };
  /** The email channel is set up (ASSISTANT_EMAIL_IMAP_HOST and _SMTP_HOST): its entry is switched on. */
  email?: { configured: boolean };
}

export interface FinishN8nResult {
  apiKey: 'reused' | 'created';
  activated: number;
  telegram: string;
  email: string;
}

export async function finishN8nSetup(options: FinishN8nOptions): Promise<FinishN8nResult> {
  const stored = existsSync(options.apiKeyFile) ? readFileSync(options.apiKeyFile, 'utf8').trim() : undefined;
  const previous = options.givenApiKey?.trim() || stored;
  const apiKey = await ownerApiKey(options.n8nUrl, options.owner, previous);
  if (apiKey !== stored) writeFileSync(options.apiKeyFile, `${apiKey}\n`, { mode: 0o600 });
  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${options.n8nUrl}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-N8N-API-KEY': apiKey, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`${init.method ?? 'GET'} /api/v1${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  await api(`/credentials/${N8N_API_CREDENTIAL_ID}`, {
    method: 'PATCH',
    body: { data: { apiKey, baseUrl: `${options.n8nUrl}/api/v1` } },
  });

  let activated = 0;
  if (options.activateListFile && existsSync(options.activateListFile)) {
    const ids = JSON.parse(readFileSync(options.activateListFile, 'utf8')) as unknown;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new Error(`${options.activateListFile}: expected a JSON array of workflow ids`);
    }
    for (const id of ids) {
      await api(`/workflows/${id}/activate`, { method: 'POST' }).catch((error: Error) => {
        throw new Error(`switching on workflow ${id}: ${error.message}`);
      });
      activated += 1;
    }
    rmSync(options.activateListFile);
  }

  let telegram = 'off (no ASSISTANT_TELEGRAM_BOT_TOKEN)';
  if (options.telegram?.botToken.trim()) {
    const entry = await api<TelegramEntryWorkflow & { active: boolean }>(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}`);
    if (!entry.active) await api(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
    telegram = 'active';
    const { certificateFile, webhookBaseUrl } = options.telegram;
    if (certificateFile) {
      if (!webhookBaseUrl) throw new Error('N8N_PUBLIC_URL: needed to upload the certificate to Telegram');
      await registerTelegramWebhook({
        apiBaseUrl: options.telegram.apiBaseUrl,
        botToken: options.telegram.botToken.trim(),
        registration: telegramWebhookRegistration(entry, webhookBaseUrl),
        certificatePem: readFileSync(certificateFile, 'utf8'),
      });
      telegram += `, self-signed certificate uploaded (${certificateFile})`;
    }
  }
  let email = 'off (no ASSISTANT_EMAIL_IMAP_HOST and ASSISTANT_EMAIL_SMTP_HOST)';
  if (options.email?.configured) {
    const entry = await api<{ active: boolean }>(`/workflows/${EMAIL_ENTRY_WORKFLOW_ID}`);
    if (!entry.active) await api(`/workflows/${EMAIL_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
    email = 'active';
  }
  return { apiKey: apiKey === previous ? 'reused' : 'created', activated, telegram, email };
}
