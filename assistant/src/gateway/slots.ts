// An upstream's slots: at most `size` calls at once (Ollama serves one at a time by default); waiting calls are served
// a person's turn first (interactive), then background work, each in arrival order.
export class Slots {
  private busy = 0;
  private readonly waiting: Array<{ interactive: boolean; start: () => void }> = [];

  constructor(readonly size: number) {}

  /** Resolves with a release function once a slot is free; `signal` aborting while waiting removes the call. */
  acquire(interactive: boolean, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const entry = {
        interactive,
        start: () => {
          this.busy++;
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (this.busy < this.size && this.waiting.length === 0) return entry.start();
      signal?.addEventListener('abort', onAbort, { once: true });
      // Interactive calls go after the other interactive ones, before any background call.
      const at = interactive ? this.waiting.findIndex((w) => !w.interactive) : -1;
      if (at < 0) this.waiting.push(entry);
      else this.waiting.splice(at, 0, entry);
    });
  }

  get queued(): number {
    return this.waiting.length;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      this.waiting.shift()?.start();
    };
  }
}
