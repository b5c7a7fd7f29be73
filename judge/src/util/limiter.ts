// A counting semaphore: at most `limit` tasks run at once; the rest wait in arrival order.
// A waiting task whose signal aborts leaves the queue and rejects with the signal's reason.
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`concurrency limit must be a positive integer, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.active >= this.limit) await this.wait(signal);
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(wake);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      this.waiting.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
