// The real model gateway in front of a loopback provider, its ledger on the test's database: what nodes that call the
// chat model (Capture Memories, Consolidate Memories) reach through the Assistant Chat Model credential.
import type { Pool } from 'pg';
import { readGatewaySettings, startGateway, type RunningGateway } from 'assistant-core';

export async function startTestGateway(key: string, providerUrl: string, ledger: Pool): Promise<RunningGateway> {
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: key,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: 'postgres://unused',
    ASSISTANT_LLM_BASE_URL: `${providerUrl}/v1`,
  });
  return await startGateway({ settings, ledger });
}
