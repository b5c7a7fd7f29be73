// The local stack behind scripts/run.sh: Postgres 17 + n8n + the judge server + the assistant, state kept in
// .runtime/local/. First run: random secrets into .runtime/local/local.env (mode 600). Later runs reuse the data and
// the secrets. Ctrl-C (or SIGTERM) stops everything.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { prepareAssistant, type PreparedAssistant } from './local-assistant';
import { judgeThroughGateway, startLocalGateway } from './local-gateway';
import { startJudge, withKeyStore } from './local-judge';
import { startLocalN8n } from './local-n8n';
import { LOCAL_DIR, loadLocalSettings, port, publicUrl, SUPERVISOR_STATE_FILE } from './local-settings';
import { printSummary } from './local-summary';
import { startupVerdict } from '../doctor/startup';
import { switchSlackEntry } from './local-slack';
import { switchEmailEntry } from './local-email';
import { switchTelegramEntry } from './local-telegram';
import { reachableDataDir, startPostgres, type PostgresServer } from './postgres';
import type { GatewayProcess } from './gateway';
import { stopProcess } from './process';
import type { Stack } from './stack';
import { Supervisor, type ProcessEnd, type SupervisedService } from './supervisor';

export { LOCAL_DIR, loadLocalSettings } from './local-settings';

/** The local stack as it runs: each start phase fills in its part; the supervisor may replace a process. */
interface LocalRun {
  settings: Record<string, string>;
  owner: { email: string; password: string };
  supervisor: Supervisor;
  postgres?: PostgresServer;
  judge?: ChildProcess;
  gateway?: GatewayProcess;
  stack?: Stack;
  assistant?: PreparedAssistant;
  telegramStatus?: string;
  stopping: boolean;
}

/** The settings, the owner, and a supervisor that stops everything when it gives up on a service. */
function newLocalRun(): LocalRun {
  const settings = loadLocalSettings();
  const run: LocalRun = {
    settings,
    owner: { email: settings.OWNER_EMAIL, password: settings.OWNER_PASSWORD },
    stopping: false,
    supervisor: new Supervisor({
      log: (line) => console.log(`${new Date().toISOString()} ${line}`),
      stateFile: SUPERVISOR_STATE_FILE,
      onGiveUp: () => void stopAll(run, 1),
    }),
  };
  return run;
}

function postgresOptions(settings: Record<string, string>) {
  return {
    dataDir: reachableDataDir(path.join(LOCAL_DIR, 'postgres')),
    port: port(settings, 'POSTGRES_PORT'),
    password: settings.POSTGRES_PASSWORD,
    database: 'n8n',
  };
}

async function startLocalPostgres(run: LocalRun): Promise<void> {
  run.postgres = await startPostgres(postgresOptions(run.settings));
  console.log(`Postgres 17 on 127.0.0.1:${run.postgres.port}`);
}

async function setUpAssistant(run: LocalRun): Promise<void> {
  run.assistant = await prepareAssistant(run.postgres!, run.settings);
}

async function startGateway(run: LocalRun): Promise<void> {
  run.gateway = await startLocalGateway(run.settings, run.postgres!);
  console.log(`model gateway on ${run.gateway.url} (models at ${run.settings.ASSISTANT_LLM_BASE_URL})`);
}

async function startJudgeServer(run: LocalRun): Promise<void> {
  const { settings } = run;
  run.judge = await startJudge(withKeyStore(judgeThroughGateway(settings, run.gateway!), run.postgres!));
  console.log(`judge server on http://127.0.0.1:${settings.JUDGE_PORT} (model: ${settings.JUDGE_OPENAI_BASE_URL})`);
}

async function startN8n(run: LocalRun, webhookBase: string | undefined): Promise<void> {
  run.stack = await startLocalN8n(run.settings, run.postgres!, run.owner, webhookBase, run.gateway!);
}

async function switchTelegram(run: LocalRun, webhookBase: string | undefined): Promise<void> {
  run.telegramStatus = await switchTelegramEntry(run.stack!, run.settings, run.assistant!.ownerChatId, webhookBase);
  // Email (IMAP in, SMTP out): its own line, so a mail server problem never stops the start.
  console.log(
    `Email: ${await switchEmailEntry(run.stack!, run.settings).catch((error: Error) => `NOT active: ${error.message}`)}`,
  );
  // Slack (Socket Mode, no public URL needed): its own line, so a Slack problem never stops the start.
  console.log(
    `Slack: ${await switchSlackEntry(run.stack!, run.settings).catch((error: Error) => `NOT active: ${error.message}`)}`,
  );
}

const exitOf = (child: ChildProcess): Promise<ProcessEnd> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

/**
 * Postgres, the gateway, the judge, n8n, the browser service (when Chromium is there) and in queue mode Redis and the
 * n8n worker are watched from the moment all are up; each comes back on its own.
 */
function superviseServices(run: LocalRun): void {
  const services: SupervisedService[] = [
    {
      name: 'postgres',
      pid: () => run.postgres!.pid,
      whenExited: () => run.postgres!.whenExited(),
      restart: async () => {
        run.postgres = await startPostgres(postgresOptions(run.settings));
      },
    },
    {
      name: 'model gateway',
      pid: () => run.gateway!.pid(),
      whenExited: () => run.gateway!.whenExited(),
      restart: async () => {
        run.gateway = await startLocalGateway(run.settings, run.postgres!);
      },
    },
    {
      name: 'judge',
      pid: () => run.judge!.pid!,
      whenExited: () => exitOf(run.judge!),
      restart: async () => {
        run.judge = await startJudge(withKeyStore(judgeThroughGateway(run.settings, run.gateway!), run.postgres!));
      },
    },
    {
      name: 'n8n',
      pid: () => run.stack!.n8n.pid(),
      whenExited: () => run.stack!.n8n.whenExited(),
      restart: () => run.stack!.n8n.restart(),
    },
  ];
  const { browser, queue } = run.stack!;
  if (browser) services.push({ name: 'browser service', ...browser });
  if (queue) {
    services.push({ name: 'redis', ...queue.redis });
    services.push({
      name: 'n8n worker',
      pid: () => queue.workerPid(),
      whenExited: () => queue.workerWhenExited(),
      restart: () => queue.restartWorker(),
    });
  }
  for (const service of services) run.supervisor.watch(service);
}

/**
 * doctor's quick verdict (scripts/doctor/startup.ts), bounded in time, after the summary; it never stops the start.
 * ASSISTANT_DOCTOR_AT_START=off (local.env or the environment) skips it: no call of its reaches the models.
 */
async function printDoctorVerdict(run: LocalRun): Promise<void> {
  const atStart = run.settings.ASSISTANT_DOCTOR_AT_START ?? process.env.ASSISTANT_DOCTOR_AT_START;
  if (atStart?.trim().toLowerCase() === 'off') return;
  try {
    const lines = await startupVerdict({
      ...run.settings,
      LOCAL_STATE_DIR: LOCAL_DIR,
      ASSISTANT_GATEWAY_URL: run.gateway!.url,
      ASSISTANT_GATEWAY_KEY: run.gateway!.key,
    });
    console.log(`${lines.join('\n')}\n`);
  } catch (error) {
    console.log(`doctor: failed: ${(error as Error).message}\n`);
  }
}

/** Stops everything in order (n8n, the judge, the gateway, Postgres), once, and exits with `code`. */
async function stopAll(run: LocalRun, code: number): Promise<void> {
  if (run.stopping) return;
  run.stopping = true;
  run.supervisor.stop();
  console.log('\nstopping…');
  await run.stack?.stop().catch((e) => console.error(e));
  if (run.judge) await stopProcess(run.judge, { signal: 'SIGTERM', timeoutMs: 15_000 });
  await run.gateway?.stop().catch((e) => console.error(e));
  await run.postgres?.stop().catch((e) => console.error(e));
  console.log('stopped.');
  process.exit(code);
}

function stopOnSignals(run: LocalRun): void {
  process.on('SIGINT', () => void stopAll(run, 0));
  process.on('SIGTERM', () => void stopAll(run, 0));
}

async function main(): Promise<void> {
  const run = newLocalRun();
  stopOnSignals(run);
  try {
    await startLocalPostgres(run);
    await setUpAssistant(run);
    await startGateway(run);
    await startJudgeServer(run);
    const webhookBase = publicUrl(run.settings);
    await startN8n(run, webhookBase);
    await switchTelegram(run, webhookBase);
  } catch (error) {
    console.error(`\nrun.sh: ${(error as Error).message}`);
    await stopAll(run, 1);
    return;
  }
  await printSummary(run.stack!, run.settings, run.owner, run.assistant!, run.telegramStatus!);
  superviseServices(run);
  await printDoctorVerdict(run);
}

void main();
