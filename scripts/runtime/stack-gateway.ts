// The stack's model gateway (docs/MODELS.md): started before n8n with the provider settings of the environment, so
// that the credentials n8n imports point at it (the chat model's base URL is <gateway>/llm/v1).
import path from 'node:path';
import { gatewayClientEnv, startGatewayProcess } from './gateway';
import type { PostgresServer } from './postgres';
import type { Cleanup, Log, StackGateway, StackOptions } from './stack-types';

/** The assistant's database as its Postgres credential is filled (ASSISTANT_PG_*), else the stack's database. */
function assistantDatabaseUrl(settings: Record<string, string | undefined>, postgres: PostgresServer): string {
  if (!settings.ASSISTANT_PG_PORT) return postgres.url;
  const url = new URL('postgres://localhost');
  url.hostname = settings.ASSISTANT_PG_HOST || '127.0.0.1';
  url.port = settings.ASSISTANT_PG_PORT;
  url.pathname = `/${settings.ASSISTANT_PG_DATABASE || 'n8n'}`;
  url.username = settings.ASSISTANT_PG_USER || 'postgres';
  url.password = settings.ASSISTANT_PG_PASSWORD ?? '';
  return url.toString();
}

/** The gateway (the stack's own unless given or switched off) and the settings its callers are filled with. */
export async function useGateway(
  options: StackOptions,
  postgres: PostgresServer,
  userFolder: string,
  cleanups: Cleanup[],
  log: Log,
): Promise<{ gateway?: StackGateway; clientEnv: Record<string, string> }> {
  const settings = { ...process.env, ...(options.env ?? {}), ...(options.credentialEnv ?? {}) };
  if (options.gateway === false) return { clientEnv: {} };
  if (options.gateway) return { gateway: options.gateway, clientEnv: gatewayClientEnv(options.gateway, settings) };
  const logFile = path.join(userFolder, 'model-gateway.log');
  const clockFile = options.gatewayTestClock ? path.join(userFolder, 'model-gateway-clock-offset') : undefined;
  const started = await startGatewayProcess({
    settings,
    databaseUrl: assistantDatabaseUrl(settings, postgres),
    output: { logFile },
    testClockFile: clockFile,
  });
  cleanups.push(() => started.stop());
  log(`model gateway on ${started.url}`);
  return {
    gateway: { url: started.url, key: started.key, logFile, pid: () => started.pid(), clockFile },
    clientEnv: gatewayClientEnv(started, settings),
  };
}
