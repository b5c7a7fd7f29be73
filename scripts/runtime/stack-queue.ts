// n8n's queue mode (docs/RUNTIME.md): Redis, and one n8n worker beside the main instance.
import { existsSync, readFileSync } from 'node:fs';
import { spawnN8n, type N8nProcess } from './n8n-process';
import { freePort, StartupFailed, waitFor } from './process';
import { startRedis, type RedisServer } from './redis';
import type { Cleanup, Log, StackRedis } from './stack-types';

/**
 * Queue mode: Redis, and the settings that make the main instance queue its executions there. A restart brings it
 * back on the same port (the queue is empty then: jobs in flight are lost, executions stay in Postgres).
 */
export async function startQueueRedis(
  userFolder: string,
  env: Record<string, string>,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  log: Log,
): Promise<StackRedis> {
  let redis: RedisServer = await startRedis({ dir: userFolder });
  cleanups.push(() => redis.stop());
  log(`Redis on ${redis.host}:${redis.port} (queue mode)`);
  const queueEnv = {
    EXECUTIONS_MODE: 'queue',
    QUEUE_BULL_REDIS_HOST: redis.host,
    QUEUE_BULL_REDIS_PORT: String(redis.port),
  };
  Object.assign(env, queueEnv);
  Object.assign(processEnv, queueEnv);
  const { host, port } = redis;
  return {
    host,
    port,
    pid: () => redis.pid,
    whenExited: () => redis.whenExited(),
    restart: async () => {
      await redis.stop();
      redis = await startRedis({ dir: userFolder, port });
    },
  };
}

/** One `n8n worker` beside the main instance: its own task-runner broker and health port, ready when /healthz is. */
export async function startWorker(
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  log: Log,
): Promise<{ process: N8nProcess; restart(): Promise<void> }> {
  const healthPort = await freePort();
  const workerEnv: NodeJS.ProcessEnv = {
    ...processEnv,
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    QUEUE_HEALTH_CHECK_ACTIVE: 'true',
    QUEUE_HEALTH_CHECK_PORT: String(healthPort),
    N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
  };
  const worker = spawnN8n(userFolder, workerEnv, cleanups, {
    args: ['worker', '--concurrency=10'],
    logName: 'n8n-worker.log',
  });
  const ready = async () => {
    try {
      await waitFor(
        async () => {
          if (worker.exited()) throw new StartupFailed('the n8n worker exited during start-up');
          return (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok;
        },
        { timeoutMs: 240_000, what: `the n8n worker's readiness on port ${healthPort}`, intervalMs: 500 },
      );
    } catch (error) {
      const tail = existsSync(worker.logFile)
        ? readFileSync(worker.logFile, 'utf8').split('\n').slice(-40).join('\n')
        : '';
      throw new Error(`${(error as Error).message}; last lines of ${worker.logFile}:\n${tail}`);
    }
  };
  await ready();
  log(`n8n worker ready (queue mode; log ${worker.logFile})`);
  return {
    process: worker,
    restart: async () => {
      await worker.stop();
      worker.respawn();
      await ready();
    },
  };
}
