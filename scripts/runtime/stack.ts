// A real n8n 2.41.1 on Node 24 + Postgres 17, with the project installed into it:
// the nodes package, credentials from templates, workflows from folders, activated through the public API.
import { ownerApiKey } from 'assistant-core';
import { assertRuntimeInstalled } from './n8n';
import { publicApi, webhookCaller } from './n8n-api';
import { n8nSettings } from './n8n-env';
import { activateWorkflows, importApiCredential, importIntoN8n } from './n8n-import';
import { spawnN8n, waitUntilReady, type N8nProcess } from './n8n-process';
import { installNodesPackageIfWanted, prepareUserFolder } from './n8n-user-folder';
import { startPostgres, type PostgresServer } from './postgres';
import { processTree, sleep } from './process';
import { startBrowserIfWanted } from './stack-browser';
import { useGateway } from './stack-gateway';
import { startQueueRedis, startWorker } from './stack-queue';
import type { Cleanup, Log, Stack, StackOptions } from './stack-types';

export type { ImportedWorkflow, ProcessExit, Stack, StackBrowser, StackOptions } from './stack-types';
export { isActivatableTrigger, readWorkflowFiles } from './workflow-files';
export { baseN8nEnv, DEFAULT_OWNER, TEST_ENCRYPTION_KEY, WEBHOOK_GUARD_FILE } from './n8n-env';
export { NODES_PACKAGE_NAME } from './n8n-user-folder';
export { WORKFLOWS_DIR } from './n8n-import';
/** The id of the "n8n API" credential the assistant's forget tools use to purge a user's saved executions. */
export { N8N_API_CREDENTIAL_ID } from 'assistant-core';

/** Runs the clean-ups registered so far, newest first, each once; a failing one does not stop the others. */
async function runCleanups(cleanups: Cleanup[]): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

/** Postgres: the caller's, or our own (stopped by the clean-up). */
async function usePostgres(options: StackOptions, cleanups: Cleanup[], log: Log): Promise<PostgresServer> {
  if (options.postgres && 'url' in options.postgres) return options.postgres;
  const postgres = await startPostgres({ database: 'n8n', ...(options.postgres ?? {}) });
  cleanups.push(() => postgres.stop());
  log(`postgres 17 on ${postgres.port}`);
  return postgres;
}

/** PIDs of n8n and its process tree, and of the stack's own Postgres until the stack is stopped. */
function stackPids(
  options: StackOptions,
  n8n: N8nProcess,
  postgres: PostgresServer,
  cleanups: Cleanup[],
): () => number[] {
  return () => {
    const alive = n8n.exited() ? [] : processTree(n8n.child.pid!);
    for (const pid of alive) n8n.knownPids.add(pid);
    const all = [...n8n.knownPids];
    if (cleanups.length > 0 && !(options.postgres && 'url' in options.postgres)) all.push(postgres.pid);
    return [...new Set(all)];
  };
}

/**
 * Starts Postgres (unless given one), prepares n8n's user folder with the nodes package, credentials and workflows,
 * starts n8n, gets an API key and activates the workflows. A failing step stops everything started before it.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  assertRuntimeInstalled();
  const log = options.log ?? (() => undefined);
  const cleanups: Cleanup[] = [];
  try {
    const postgres = await usePostgres(options, cleanups, log);
    const userFolder = prepareUserFolder(options, cleanups);
    installNodesPackageIfWanted(options, userFolder);
    const { n8nUrl, owner, env, processEnv } = await n8nSettings(options, userFolder, postgres);
    const browser = await startBrowserIfWanted(options, userFolder, env, cleanups, log);
    if (browser) {
      Object.assign(env, browser.process.clientEnv);
      Object.assign(processEnv, browser.process.clientEnv);
    }
    const redis = options.queue ? await startQueueRedis(userFolder, env, processEnv, cleanups, log) : undefined;
    const { gateway, clientEnv } = await useGateway(options, postgres, userFolder, cleanups, log);
    const credentialEnv = { ...(options.credentialEnv ?? {}), ...clientEnv };
    const { workflows, sync } = await importIntoN8n({ ...options, credentialEnv }, userFolder, processEnv, log);
    const n8n = spawnN8n(userFolder, processEnv, cleanups);
    await waitUntilReady(n8n, n8nUrl, log);
    const worker = redis ? await startWorker(userFolder, processEnv, cleanups, log) : undefined;
    const apiKey = await ownerApiKey(n8nUrl, owner, options.apiKey);
    await importApiCredential(options, userFolder, processEnv, { apiKey, n8nUrl }, log);
    const api = publicApi(n8nUrl, apiKey);
    await activateWorkflows(options, workflows, sync, api, log);
    return {
      n8nUrl,
      webhookUrl: `${n8nUrl}/webhook`,
      apiKey,
      owner: { email: owner.email, password: owner.password },
      postgres: { url: postgres.url, port: postgres.port, database: postgres.database },
      userFolder,
      logFile: n8n.logFile,
      workflows,
      imports: sync,
      env,
      // The browser service first, so that the stack's own Postgres stays last (the e2e checks read it there).
      pids: () => [
        ...(browser ? [browser.stack.pid()] : []),
        ...(gateway?.pid ? [gateway.pid()] : []),
        ...stackPids(options, n8n, postgres, cleanups)(),
      ],
      browser: browser?.stack,
      gateway,
      queue:
        redis && worker
          ? {
              workerLogFile: worker.process.logFile,
              workerPid: () => worker.process.child.pid!,
              restartWorker: () => worker.restart(),
              workerWhenExited: () => worker.process.whenExited(),
              redis,
            }
          : undefined,
      n8n: {
        pid: () => n8n.child.pid!,
        whenExited: () => n8n.whenExited(),
        restart: async (restartOptions = {}) => {
          await n8n.stop();
          if (restartOptions.downMs) await sleep(restartOptions.downMs);
          n8n.respawn();
          try {
            await waitUntilReady(n8n, n8nUrl, log);
          } catch (error) {
            // Not ready: stopped, so the supervisor sees it gone and tries again (or gives up).
            await n8n.stop();
            throw error;
          }
        },
      },
      api,
      webhook: webhookCaller(n8nUrl),
      stop: () => runCleanups(cleanups),
    };
  } catch (error) {
    await runCleanups(cleanups);
    throw error;
  }
}
