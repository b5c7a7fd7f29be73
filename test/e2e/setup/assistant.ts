// What an operator does after install, for the assistant's e2e tests: the webhook's X-API-Key and the Postgres
// credential pointed at the stack's database; and a call of POST /webhook/agent with that key.
import type { E2EStack } from './harness';
import { postgresCredentialData } from './postgres-credential';
import { E2E_ASSISTANT_API_KEY } from './secrets';

export async function configureAssistantCredentials(stack: E2EStack): Promise<void> {
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
}

/** POST /webhook/agent with the assistant's key; the status and the JSON answer. */
export async function postToAgent<T>(
  stack: E2EStack,
  body: Record<string, unknown>,
): Promise<{ status: number; body: T }> {
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}
