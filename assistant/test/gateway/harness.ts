// A gateway on the loopback in front of the OpenAI-compatible fake, with its ledger in the test database.
import type { Pool } from 'pg';
import { readGatewaySettings, type GatewaySettings } from '../../src/gateway/config';
import { listModelCalls, type ModelCallRow } from '../../src/gateway/ledger';
import { startGateway, type RunningGateway } from '../../src/gateway/server';

export const GATEWAY_KEY = 'gateway-test-key-0123456789';
export const PROVIDER_KEY = 'sk-provider-secret-key-abcdef123456';

export interface TestGateway extends RunningGateway {
  settings: GatewaySettings;
  /** POSTs JSON to <gateway>/<path> with the gateway's key. */
  post(path: string, body: unknown, key?: string): Promise<Response>;
  /** The ledger rows written since the gateway started (after every write settled). */
  calls(): Promise<ModelCallRow[]>;
}

export async function startTestGateway(pool: Pool, env: Record<string, string>): Promise<TestGateway> {
  const since = new Date();
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: 'postgres://unused',
    ...env,
  });
  const gateway = await startGateway({ settings, ledger: pool });
  return {
    ...gateway,
    settings,
    post: (path, body, key = GATEWAY_KEY) =>
      fetch(`${gateway.url}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      }),
    calls: async () => {
      await gateway.flushed();
      return listModelCalls(pool, since);
    },
  };
}
