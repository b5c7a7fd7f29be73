// Keeps the local stack's processes running: when one dies unexpectedly it is restarted with backoff, and every
// exit and restart is recorded (in the log and a JSON state file). A process that keeps dying is given up on: the
// supervisor then stops everything and exits non-zero, so that systemd (Restart=on-failure) starts it afresh.
import { writeFileSync } from 'node:fs';
import { sleep } from './process';

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One supervised process: how to watch it and how to bring it back. */
export interface SupervisedService {
  name: string;
  pid(): number;
  whenExited(): Promise<ProcessEnd>;
  /** Starts it again (the old process is gone); resolves once it serves again. */
  restart(): Promise<void>;
}

export interface RestartRecord {
  service: string;
  at: string;
  exit: string;
  restarted: boolean;
  error?: string;
}

export interface SupervisorOptions {
  log: (line: string) => void;
  /** Where the state (PIDs, restarts) is written after every change. */
  stateFile?: string;
  /** Give up on a service after this many restarts within `windowMs` (default 5 in 10 minutes). */
  maxRestarts?: number;
  windowMs?: number;
  /** Wait before restart n (1-based); default 1 s doubling up to 30 s. */
  backoffMs?: (restart: number) => number;
  /** Called once when a service is given up on; the caller stops everything and exits non-zero. */
  onGiveUp: (service: string, reason: string) => void;
  now?: () => Date;
}

const describeExit = (end: ProcessEnd) => (end.signal ? `killed by ${end.signal}` : `exited with code ${end.code}`);

export class Supervisor {
  private readonly services: SupervisedService[] = [];
  private readonly history: RestartRecord[] = [];
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Watches a running service from now on. */
  watch(service: SupervisedService): void {
    this.services.push(service);
    this.writeState();
    void this.follow(service);
  }

  /** Stop watching (call before stopping the services on purpose). */
  stop(): void {
    this.stopping = true;
  }

  restarts(): RestartRecord[] {
    return [...this.history];
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private async follow(service: SupervisedService): Promise<void> {
    const recent: number[] = [];
    for (;;) {
      const end = await service.whenExited();
      if (this.stopping) return;
      const at = this.now();
      const windowMs = this.options.windowMs ?? 600_000;
      while (recent.length > 0 && at.getTime() - recent[0] > windowMs) recent.shift();
      if (recent.length >= (this.options.maxRestarts ?? 5)) {
        const reason = `${service.name} ${describeExit(end)} after ${recent.length} restarts within ${windowMs / 1000} s`;
        this.record({ service: service.name, at: at.toISOString(), exit: describeExit(end), restarted: false });
        this.options.log(`supervisor: giving up: ${reason}`);
        this.options.onGiveUp(service.name, reason);
        return;
      }
      recent.push(at.getTime());
      const wait = (this.options.backoffMs ?? ((n) => Math.min(30_000, 1000 * 2 ** (n - 1))))(recent.length);
      this.options.log(
        `supervisor: ${service.name} ${describeExit(end)}; restarting in ${wait / 1000} s (restart ${recent.length})`,
      );
      await sleep(wait);
      if (this.stopping) return;
      try {
        await service.restart();
        this.record({ service: service.name, at: at.toISOString(), exit: describeExit(end), restarted: true });
        this.options.log(`supervisor: ${service.name} is running again (pid ${service.pid()})`);
      } catch (error) {
        // The failed start is itself an exit: the loop counts it and tries again, or gives up.
        const message = (error as Error).message.split('\n')[0];
        this.record({
          service: service.name,
          at: at.toISOString(),
          exit: describeExit(end),
          restarted: false,
          error: message,
        });
        this.options.log(`supervisor: restarting ${service.name} failed: ${message}`);
      }
    }
  }

  private record(entry: RestartRecord): void {
    this.history.push(entry);
    this.writeState();
  }

  private writeState(): void {
    if (!this.options.stateFile) return;
    const state = {
      updatedAt: this.now().toISOString(),
      services: Object.fromEntries(this.services.map((s) => [s.name, { pid: s.pid() }])),
      restarts: this.history,
    };
    writeFileSync(this.options.stateFile, JSON.stringify(state, null, 2) + '\n', { mode: 0o644 });
  }
}
