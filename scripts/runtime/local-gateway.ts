// The model gateway of the local stack (run.sh and the native install): on its fixed port with its kept key, so that
// the credentials n8n keeps stay valid across restarts; the judge is configured to reach its model through it.
import { withCaller } from 'assistant-core';
import { startGatewayProcess, type GatewayProcess } from './gateway';
import { ASSISTANT_DATABASE } from './local-assistant';
import { port } from './local-settings';
import type { PostgresServer } from './postgres';

export function startLocalGateway(settings: Record<string, string>, postgres: PostgresServer): Promise<GatewayProcess> {
  const database = new URL(postgres.url);
  database.pathname = `/${ASSISTANT_DATABASE}`;
  return startGatewayProcess({
    settings,
    databaseUrl: database.toString(),
    port: port(settings, 'ASSISTANT_GATEWAY_PORT'),
    key: settings.ASSISTANT_GATEWAY_KEY,
  });
}

/** The judge's settings with its OpenAI-compatible backend pointed at the gateway's judge upstream. */
export function judgeThroughGateway(
  settings: Record<string, string>,
  gateway: { url: string; key: string },
): Record<string, string> {
  if ((settings.JUDGE_BACKEND || 'openai') !== 'openai') return settings;
  return {
    ...settings,
    JUDGE_OPENAI_BASE_URL: `${gateway.url}/judge/v1`,
    JUDGE_OPENAI_API_KEY: gateway.key,
    JUDGE_OPENAI_MODEL: withCaller(settings.JUDGE_OPENAI_MODEL, { job: 'judge' }),
  };
}
