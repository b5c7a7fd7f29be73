// The local stack's email entry: switched on when a mailbox is set up (ASSISTANT_EMAIL_IMAP_HOST and _SMTP_HOST) and
// it was (re)imported or its credentials changed; otherwise left as the operator left it in the editor.
import { EMAIL_ENTRY_WORKFLOW_ID } from 'assistant-core';
import type { Stack } from './stack';

const EMAIL_CREDENTIAL_IDS = ['asstEmailImap001', 'asstEmailSmtp001'];

/** Answers the status line. */
export async function switchEmailEntry(stack: Stack, settings: Record<string, string>): Promise<string> {
  if (!settings.ASSISTANT_EMAIL_IMAP_HOST?.trim() || !settings.ASSISTANT_EMAIL_SMTP_HOST?.trim()) {
    return 'off (no ASSISTANT_EMAIL_IMAP_HOST and ASSISTANT_EMAIL_SMTP_HOST)';
  }
  const changed =
    stack.imports.importedWorkflows.includes(EMAIL_ENTRY_WORKFLOW_ID) ||
    stack.imports.writtenCredentials.some((credential) => EMAIL_CREDENTIAL_IDS.includes(credential.id));
  if (!changed) {
    const entry = await stack.api<{ active: boolean }>(`/workflows/${EMAIL_ENTRY_WORKFLOW_ID}`);
    return entry.active ? 'active (as left in the editor)' : 'off (switched off in the editor)';
  }
  await stack.api(`/workflows/${EMAIL_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
  return `active, reading ${settings.ASSISTANT_EMAIL_ADDRESS || settings.ASSISTANT_EMAIL_IMAP_USER}`;
}
