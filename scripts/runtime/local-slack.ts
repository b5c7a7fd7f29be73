// The local stack's Slack entry (workflows/assistant-slack.json): switched on when the Slack app's tokens are set
// (ASSISTANT_SLACK_BOT_TOKEN and ASSISTANT_SLACK_APP_TOKEN, written into the Assistant Slack App credential) and it
// was (re)imported or the credential changed; otherwise left as the operator left it in the editor. Socket Mode needs
// no public URL. Answers the status line.
import type { Stack } from './stack';

export const SLACK_ENTRY_WORKFLOW_ID = 'asstSlackEntry01';
const SLACK_CREDENTIAL_ID = 'asstSlackApp0001';

export async function switchSlackEntry(stack: Stack, settings: Record<string, string | undefined>): Promise<string> {
  const bot = (settings.ASSISTANT_SLACK_BOT_TOKEN ?? '').trim();
  const app = (settings.ASSISTANT_SLACK_APP_TOKEN ?? '').trim();
  if (!bot || !app) return 'off (no ASSISTANT_SLACK_BOT_TOKEN and ASSISTANT_SLACK_APP_TOKEN)';
  if (!bot.startsWith('xoxb-')) return 'NOT active: ASSISTANT_SLACK_BOT_TOKEN must be the bot token (xoxb-…)';
  if (!app.startsWith('xapp-')) return 'NOT active: ASSISTANT_SLACK_APP_TOKEN must be the app-level token (xapp-…)';
  const changed =
    stack.imports.importedWorkflows.includes(SLACK_ENTRY_WORKFLOW_ID) ||
    stack.imports.writtenCredentials.some((credential) => credential.id === SLACK_CREDENTIAL_ID);
  if (!changed) {
    const entry = await stack.api<{ active: boolean }>(`/workflows/${SLACK_ENTRY_WORKFLOW_ID}`);
    return entry.active ? 'active (as left in the editor)' : 'off (switched off in the editor)';
  }
  try {
    await stack.api(`/workflows/${SLACK_ENTRY_WORKFLOW_ID}/activate`, { method: 'POST' });
  } catch (error) {
    return `NOT active: ${(error as Error).message.slice(0, 300)}`;
  }
  const owner = (settings.ASSISTANT_SLACK_OWNER_USER_ID ?? '').trim();
  return owner
    ? `active (Socket Mode), answers Slack user ${owner}`
    : 'active (Socket Mode), but answers no one until ASSISTANT_SLACK_OWNER_USER_ID is set';
}
