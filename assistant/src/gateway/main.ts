// The model gateway as a process: `node assistant/dist/gateway/main.js`, settings from its environment (config.ts).
// It brings the assistant's schema up to date (the ledger is a table of it), then listens; SIGTERM stops it after the
// ledger rows of answered calls are written. A bad setting is one line naming it, and exit code 2.
import { Pool } from 'pg';
import { FieldError } from '../errors';
import { runMigrations } from '../storage/migrate';
import { readGatewaySettings } from './config';
import { startGateway } from './server';
import { fileOffsetClock } from './test-clock';

async function main(): Promise<void> {
  let settings;
  try {
    settings = readGatewaySettings(process.env);
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    console.error(`model gateway: ${error.message}`);
    process.exit(2);
  }
  const ledger = new Pool({ connectionString: settings.databaseUrl, max: 4, application_name: 'model-gateway' });
  ledger.on('error', () => undefined);
  await runMigrations(ledger);
  const log = (line: string) => console.error(`model gateway: ${line}`);
  const clock = settings.testClockFile ? fileOffsetClock(settings.testClockFile) : undefined;
  if (clock) log(`TEST MODE: the caps' clock runs ahead by the seconds in ${settings.testClockFile}`);
  const gateway = await startGateway({ settings, ledger, log, clock });
  const upstreams = Object.values(settings.upstreams).map((u) => `${u.name} → ${u.baseUrl}`);
  console.log(`model gateway on ${gateway.url} (${upstreams.join(', ') || 'no upstream configured'})`);
  const stop = async () => {
    await gateway.close();
    await gateway.flushed();
    await ledger.end();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((error: Error) => {
  console.error(`model gateway: ${error.message}`);
  process.exit(1);
});
