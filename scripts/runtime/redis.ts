// Redis for n8n's queue mode (docs/RUNTIME.md, "Queue mode"): Debian's redis-server on 127.0.0.1 and a free port,
// nothing saved to disk (the queue holds only jobs in flight; executions live in Postgres).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, StartupFailed, stopProcess, waitFor } from './process';

export interface RedisServer {
  host: string;
  port: number;
  pid: number;
  logFile: string;
  /** For a supervisor (scripts/runtime/supervisor.ts). */
  whenExited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Debian's binary (apt-get install redis-server), or REDIS_SERVER_BIN. */
export function redisServerBin(): string {
  return process.env.REDIS_SERVER_BIN || '/usr/bin/redis-server';
}

/** Answers PONG to a PING (RESP inline command), or false. */
async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.write('PING\r\n');
  });
}

export async function startRedis(options: { dir: string; port?: number }): Promise<RedisServer> {
  const bin = redisServerBin();
  if (!existsSync(bin)) {
    throw new Error(`queue mode needs Redis: no ${bin} (apt-get install redis-server, or set REDIS_SERVER_BIN)`);
  }
  const port = options.port ?? (await freePort());
  const logFile = path.join(options.dir, 'redis.log');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    bin,
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', options.dir],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );
  try {
    await waitFor(
      async () => {
        if (exited) throw new StartupFailed('redis-server exited during start-up');
        return answersPing(port);
      },
      { timeoutMs: 30_000, what: `Redis on 127.0.0.1:${port}`, intervalMs: 100 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
    throw new Error(`${(error as Error).message}; last lines of ${logFile}:\n${tail}`);
  }
  return {
    host: '127.0.0.1',
    port,
    pid: child.pid!,
    logFile,
    whenExited: () => exit,
    stop: () => stopProcess(child, { signal: 'SIGTERM', timeoutMs: 10_000 }),
  };
}
