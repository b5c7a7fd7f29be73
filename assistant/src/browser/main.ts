// The browser service's entry: `node assistant/dist/browser/main.js`, configured by its environment (docs/WEB.md).
// Stops Chromium and the server on SIGTERM or SIGINT.
import { browserServiceConfigFromEnv, type BrowserServiceConfig } from './config';
import { startBrowserServer } from './server';

async function main(): Promise<void> {
  let config: BrowserServiceConfig;
  try {
    config = browserServiceConfigFromEnv(process.env);
  } catch (error) {
    console.error(`browser service: ${(error as Error).message}`);
    process.exit(2);
  }
  const log = (line: string) => console.log(`${new Date().toISOString()} browser service: ${line}`);
  let server;
  try {
    server = await startBrowserServer({ config, log });
  } catch (error) {
    console.error(`browser service: ${(error as Error).message}`);
    process.exit(1);
  }
  log(
    `listening on ${server.url} (Chromium ${server.chromium.version()}, ${config.concurrency} renders at a time, ` +
      `${config.allow.length} allow-list entries)`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
