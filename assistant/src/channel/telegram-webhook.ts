// Registering the Telegram entry's webhook with a self-signed certificate. n8n's Telegram Trigger registers its
// webhook on activation but cannot upload a certificate; without a domain, the server's certificate is self-signed
// and Telegram only delivers to it when the certificate is uploaded with setWebhook. So after activation the same
// registration (URL, secret token, updates: as n8n 2.41.1's trigger makes them) is repeated with the certificate.
// n8n keeps it: on the next activation its trigger sees the URL registered (getWebhookInfo) and does not re-register.
import { AssistantInputError } from '../errors';

/** The parts of an n8n workflow (as its public API returns it) the registration is derived from. */
export interface TelegramEntryWorkflow {
  id: string;
  nodes: Array<{
    id?: string;
    name?: string;
    type?: string;
    typeVersion?: number;
    webhookId?: string;
    parameters?: Record<string, unknown>;
  }>;
}

export interface TelegramWebhookRegistration {
  url: string;
  secretToken: string;
  allowedUpdates: string[];
}

const TELEGRAM_TRIGGER = 'n8n-nodes-base.telegramTrigger';

/**
 * What n8n's Telegram Trigger registers for `workflow` (nodes-base Telegram/TelegramTrigger create() and
 * GenericFunctions getSecretToken): /webhook/<webhookId>/webhook under n8n's WEBHOOK_URL, the secret token
 * "<workflow id>_<node id>" with only [A-Za-z0-9_-] kept, and its updates (callback_query added from version 1.5).
 */
export function telegramWebhookRegistration(
  workflow: TelegramEntryWorkflow,
  webhookBaseUrl: string,
): TelegramWebhookRegistration {
  const triggers = workflow.nodes.filter((node) => node.type === TELEGRAM_TRIGGER);
  if (triggers.length !== 1) {
    throw new AssistantInputError(
      'workflow',
      `workflow ${workflow.id} has ${triggers.length} Telegram Triggers, not 1`,
    );
  }
  const [trigger] = triggers;
  if (!trigger.id || !trigger.webhookId) {
    throw new AssistantInputError('workflow', `the Telegram Trigger of workflow ${workflow.id} has no id or webhookId`);
  }
  let base: URL;
  try {
    base = new URL(webhookBaseUrl);
  } catch {
    throw new AssistantInputError('webhookBaseUrl', `"${webhookBaseUrl}" is not a URL`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new AssistantInputError('webhookBaseUrl', `"${webhookBaseUrl}" is not an http(s) URL`);
  }
  const updatesParameter = trigger.parameters?.updates;
  let allowedUpdates = Array.isArray(updatesParameter) ? updatesParameter.map(String) : [];
  if (allowedUpdates.includes('*')) allowedUpdates = [];
  else if ((trigger.typeVersion ?? 1) >= 1.5 && !allowedUpdates.includes('callback_query')) {
    allowedUpdates = [...allowedUpdates, 'callback_query'];
  }
  const path = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return {
    url: `${base.origin}${path}webhook/${trigger.webhookId}/webhook`,
    secretToken: `${workflow.id}_${trigger.id}`.replace(/[^a-zA-Z0-9_-]+/g, ''),
    allowedUpdates,
  };
}

/** A PEM certificate, or an error naming `field`. Telegram takes the public certificate only, never a key. */
export function requireCertificatePem(pem: string, field = 'certificate'): string {
  if (/PRIVATE KEY-----/.test(pem)) {
    throw new AssistantInputError(field, 'holds a private key: give the public certificate only');
  }
  if (!/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+\r?\n-----END CERTIFICATE-----\s*$/.test(pem.trim() + '\n')) {
    throw new AssistantInputError(field, 'is not a PEM certificate (-----BEGIN CERTIFICATE----- …)');
  }
  return pem;
}

/**
 * Calls setWebhook with the registration and the certificate uploaded as a file (multipart), as Telegram requires
 * for a self-signed certificate. Pending updates are kept. Throws with Telegram's description when it refuses.
 */
export async function registerTelegramWebhook(options: {
  apiBaseUrl: string;
  botToken: string;
  registration: TelegramWebhookRegistration;
  certificatePem: string;
  fetchImpl?: typeof fetch;
}): Promise<void> {
  const certificate = requireCertificatePem(options.certificatePem);
  const form = new FormData();
  form.set('url', options.registration.url);
  form.set('secret_token', options.registration.secretToken);
  form.set('allowed_updates', JSON.stringify(options.registration.allowedUpdates));
  form.set('certificate', new Blob([certificate], { type: 'application/x-pem-file' }), 'certificate.pem');
  const base = options.apiBaseUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await (options.fetchImpl ?? fetch)(`${base}/bot${options.botToken}/setWebhook`, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new Error(`setWebhook: Telegram at ${base} not reachable (${(error as Error).message})`);
  }
  const body = (await response.json().catch(() => null)) as { ok?: boolean; description?: string } | null;
  if (!response.ok || body?.ok !== true) {
    throw new Error(`setWebhook: Telegram refused (${response.status}: ${body?.description ?? 'no description'})`);
  }
}
