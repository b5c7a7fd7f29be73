// n8n's own process (`n8n start`, or a queue-mode `n8n worker`): started, waited for until ready, stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { N8N_BIN, NODE24 } from './n8n';
import { isAlive, processTree, StartupFailed, stopProcess, waitFor } from './process';
import type { Cleanup, Log, ProcessExit } from './stack-types';

export interface N8nProcess {
  child: ChildProcess;
  logFile: string;
  /** n8n's PID and every PID seen in its process tree (task runners), all stopped by the clean-up. */
  knownPids: Set<number>;
  exited(): boolean;
  /** Resolves when the current n8n process ends, however it ends. */
  whenExited(): Promise<ProcessExit>;
  /** Stops what runs (if anything) and starts n8n again with the same settings (no import). */
  respawn(): void;
  /** Stops n8n and whatever of its process group is left. */
  stop(): Promise<void>;
}

/**
 * n8n itself (`n8n start`, or a queue-mode `n8n worker`), in its own process group so its task runners stop with it
 * (by the clean-up).
 */
export function spawnN8n(
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  cleanups: Cleanup[],
  role: { args: string[]; logName: string } = { args: ['start'], logName: 'n8n.log' },
): N8nProcess {
  const logFile = path.join(userFolder, role.logName);
  const knownPids = new Set<number>();
  let exit: Promise<ProcessExit>;
  let exited = false;
  const launch = (): ChildProcess => {
    const logFd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(NODE24, [N8N_BIN, ...role.args], {
        env: processEnv,
        stdio: ['ignore', logFd, logFd],
        detached: true,
      });
    } finally {
      closeSync(logFd);
    }
    exited = false;
    exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        exited = true;
        resolve({ code, signal });
      }),
    );
    knownPids.add(child.pid!);
    return child;
  };
  const n8n: N8nProcess = {
    child: launch(),
    logFile,
    knownPids,
    exited: () => exited,
    whenExited: () => exit,
    respawn: () => {
      n8n.child = launch();
    },
    stop: async () => {
      for (const pid of processTree(n8n.child.pid!)) knownPids.add(pid);
      await stopProcess(n8n.child, { signal: 'SIGTERM', timeoutMs: 20_000 });
      // Anything of its group still running (a task runner) goes too.
      for (const pid of knownPids) {
        if (isAlive(pid)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    },
  };
  const killGroupOnExit = () => {
    try {
      process.kill(-n8n.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killGroupOnExit);
  cleanups.push(async () => {
    process.off('exit', killGroupOnExit);
    await n8n.stop();
  });
  return n8n;
}

/** Waits for n8n's readiness; a failure keeps the end of n8n's log (the clean-up may remove the user folder). */
export async function waitUntilReady(n8n: N8nProcess, n8nUrl: string, log: Log): Promise<void> {
  const { logFile } = n8n;
  try {
    await waitFor(
      async () => {
        if (n8n.exited()) throw new StartupFailed(`n8n exited during start-up`);
        const response = await fetch(`${n8nUrl}/healthz/readiness`);
        return response.ok;
      },
      { timeoutMs: 240_000, what: `n8n readiness on ${n8nUrl}`, intervalMs: 500 },
    );
  } catch (error) {
    // The user folder (and its log) may be removed by the clean-up: keep the end of the log in the error.
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n') : '';
    throw new Error(`${(error as Error).message}; last lines of ${logFile}:\n${tail}`);
  }
  log(`n8n ready on ${n8nUrl}`);
}
