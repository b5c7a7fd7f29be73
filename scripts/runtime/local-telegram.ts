// The local stack's Telegram entry: switched on when it changed, its status line, and the self-signed certificate
// uploaded when there is no domain.
import { readFileSync } from 'node:fs';
import {
  registerTelegramWebhook,
  TELEGRAM_ENTRY_WORKFLOW_ID,
  telegramWebhookRegistration,
  type TelegramEntryWorkflow,
} from 'assistant-core';
import type { Stack } from './stack';

const TELEGRAM_CREDENTIAL_ID = 'asstTelegramBot1';

/**
 * Registers the Telegram entry's webhook again with the self-signed certificate uploaded (n8n's trigger cannot upload
 * one). Answers the status line's addition; a failure is reported there, not fatal.
 */
async function uploadWebhookCertificate(
  stack: Stack,
  settings: Record<string, string>,
  webhookBase: string,
  certificateFile: string,
): Promise<string> {
  try {
    const workflow = await stack.api<TelegramEntryWorkflow>(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}`);
    await registerTelegramWebhook({
      apiBaseUrl: settings.ASSISTANT_TELEGRAM_API_URL || 'https://api.telegram.org',
      botToken: settings.ASSISTANT_TELEGRAM_BOT_TOKEN.trim(),
      registration: telegramWebhookRegistration(workflow, webhookBase),
      certificatePem: readFileSync(certificateFile, 'utf8'),
    });
    return `; self-signed certificate uploaded (${certificateFile})`;
  } catch (error) {
    return `; certificate NOT uploaded: ${(error as Error).message.slice(0, 300)} (ASSISTANT_WEBHOOK_CERTIFICATE)`;
  }
}

/**
 * The Telegram entry once n8n runs, with a bot token: left as the operator left it, or activated when it was
 * (re)imported or the token changed. Answers the status line.
 */
export async function switchTelegramEntry(
  stack: Stack,
  settings: Record<string, string>,
  ownerChatId: string | null,
  webhookBase: string | undefined,
): Promise<string> {
  let telegramStatus = 'off (no ASSISTANT_TELEGRAM_BOT_TOKEN)';
  const telegramBot = settings.ASSISTANT_TELEGRAM_BOT_TOKEN.trim() !== '';
  // The Telegram entry is switched on when it was (re)imported or the bot token changed; otherwise it stays as
  // the operator left it in the editor.
  const telegramChanged =
    stack.imports.importedWorkflows.includes(TELEGRAM_ENTRY_WORKFLOW_ID) ||
    stack.imports.writtenCredentials.some((credential) => credential.id === TELEGRAM_CREDENTIAL_ID);
  if (telegramBot && !telegramChanged) {
    const entry = await stack.api<{ active: boolean }>(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}`);
    telegramStatus = entry.active ? 'active (as left in the editor)' : 'off (switched off in the editor)';
  } else if (telegramBot) {
    try {
      await stack.api(`/workflows/${TELEGRAM_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
      telegramStatus = ownerChatId
        ? `active, answers only chat ${ownerChatId}`
        : 'active, but answers no one until ASSISTANT_TELEGRAM_OWNER_CHAT_ID is set';
    } catch (error) {
      telegramStatus = `NOT active: ${(error as Error).message.slice(0, 300)} (Telegram needs N8N_PUBLIC_URL, an HTTPS URL reaching this n8n)`;
    }
  }
  const certificateFile = settings.ASSISTANT_WEBHOOK_CERTIFICATE?.trim();
  if (telegramBot && webhookBase && certificateFile && telegramStatus.startsWith('active')) {
    telegramStatus += await uploadWebhookCertificate(stack, settings, webhookBase, certificateFile);
  }
  return telegramStatus;
}
