// At most `maxActive` jobs at a time, `maxQueued` more waiting in order; beyond that a job is refused at once.

export class BusyError extends Error {
  constructor(active: number, queued: number) {
    super(`the browser service is busy (${active} renders running, ${queued} waiting); try again shortly`);
    this.name = 'BusyError';
  }
}

export class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxActive: number,
    readonly maxQueued: number,
  ) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < this.maxActive) {
      this.running += 1;
    } else {
      if (this.waiting.length >= this.maxQueued) throw new BusyError(this.running, this.waiting.length);
      // The slot is handed over by the job that finishes (see below), so `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
