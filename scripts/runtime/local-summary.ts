// What the local stack prints once everything runs: kept copies of edited workflows, and where to reach what.
import { expectedModels } from '../doctor/startup';
import { llmReachable } from './local-assistant';
import { ENV_FILE } from './local-settings';
import type { Stack } from './stack';

/** The notes and the summary block (URLs, logins, the model, Telegram's status, how to talk to the assistant). */
export async function printSummary(
  stack: Stack,
  settings: Record<string, string>,
  owner: { email: string },
  assistant: { chatModel: string },
  telegramStatus: string,
): Promise<void> {
  for (const copy of stack.imports.keptCopies) {
    console.log(`note: your edited workflow was kept as "${copy.name}" (${copy.id}); the new version replaced it`);
  }
  console.log(
    [
      '',
      `  n8n editor:  ${stack.n8nUrl}/`,
      // The password stays in the mode-600 settings file: this output may end up in the system log.
      `  owner login: ${owner.email} (password: OWNER_PASSWORD in ${ENV_FILE})`,
      `  System One:  POST ${stack.webhookUrl}/v1/systemone  (Authorization: Bearer <SYSTEMONE_WRAPPER_KEY>)`,
      `  judge:       http://127.0.0.1:${settings.JUDGE_PORT}/v1  (Authorization: Bearer <JUDGE_API_KEYS>)`,
      `  web chat:    http://127.0.0.1:${settings.JUDGE_PORT}/console/chat  (talk to the assistant; the console's password: JUDGE_CONSOLE_PASSWORD in ${ENV_FILE})`,
      `  console:     http://127.0.0.1:${settings.JUDGE_PORT}/console  (API keys, usage, playground; password: JUDGE_CONSOLE_PASSWORD in ${ENV_FILE})`,
      `  assistant:   POST ${stack.webhookUrl}/agent  (X-API-Key: <ASSISTANT_API_KEY>)`,
      `               model ${assistant.chatModel} at ${settings.ASSISTANT_LLM_BASE_URL}${(await llmReachable(settings)) ? '' : '  (NOT reachable yet: start it, or set ASSISTANT_LLM_BASE_URL / ASSISTANT_LLM_API_KEY / ASSISTANT_LLM_MODEL)'}`,
      ...expectedModels(settings)
        .slice(1)
        .map((line) => `               ${line}`),
      `               Telegram: ${telegramStatus}`,
      `  settings and keys: ${ENV_FILE}`,
      '',
      'Talk to the assistant:',
      `  curl -sS -X POST ${stack.webhookUrl}/agent -H 'content-type: application/json' \\`,
      // The key is read from the env file (or the shell that overrides it), never printed.
      process.env.ASSISTANT_API_KEY
        ? `    -H "X-API-Key: $ASSISTANT_API_KEY" \\`
        : `    -H "X-API-Key: $(sed -n 's/^ASSISTANT_API_KEY=//p' '${ENV_FILE}')" \\`,
      `    -d '{"message": "Hello! What can you do?", "user_id": "me"}'`,
      '',
      "Ctrl-C stops everything. doctor's quick verdict on the models follows (bounded; the start does not wait for it).",
    ].join('\n'),
  );
}
