// The server's one admission queue: at most `concurrency` requests are judged at once, at most `queueLength` wait
// for a slot (in arrival order), and every request has a deadline from the moment it is admitted or queued.
//   - a full queue → 503 `overloaded` with `retry-after`, at once;
//   - the deadline passes (waiting or running) → 504 `deadline_exceeded`, and the task's signal aborts;
//   - the caller's signal aborts (client gone, shutdown) → the task's signal aborts, the caller's reason is thrown.
// A slot is given back when the task really settles, not when its caller stops waiting: work that cannot be
// interrupted (a native model run on a worker thread) keeps its slot until it ends, so the cap always holds.
// Everything that does the judging (upstream calls, local model workers) runs inside a slot of this queue.
import { setMaxListeners } from 'node:events';
import { ApiError } from '../protocol/errors';

export interface AdmissionSettings {
  /** Requests judged at once (default 8). */
  concurrency: number;
  /** Requests that may wait for a slot (default 64; 0: none wait). When it is full → 503 with retry-after. */
  queueLength: number;
  /** Milliseconds a request may take from admission (waiting included) to its answer (default 120 000) → 504. */
  deadlineMs: number;
}

export const DEFAULT_ADMISSION: AdmissionSettings = { concurrency: 8, queueLength: 64, deadlineMs: 120_000 };

/** Seconds a caller refused for a full queue is told to wait. */
export const OVERLOADED_RETRY_AFTER_S = 1;

export interface AdmissionStats {
  running: number;
  waiting: number;
}

interface Waiter {
  wake(): void;
}

export class Admission {
  readonly settings: AdmissionSettings;
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(settings: Partial<AdmissionSettings> = {}) {
    this.settings = { ...DEFAULT_ADMISSION, ...settings };
    const check = (field: keyof AdmissionSettings, min: number) => {
      const value = this.settings[field];
      if (!Number.isInteger(value) || value < min) {
        throw new Error(`admission.${field} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
      }
    };
    check('concurrency', 1);
    check('queueLength', 0);
    check('deadlineMs', 1);
  }

  get stats(): AdmissionStats {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `task` in a slot. The task's signal aborts at the deadline and when `options.signal` aborts; the promise
   * then rejects at once (504 `deadline_exceeded`, or the caller's abort reason) while the slot stays taken until
   * the task settles. With `options.controller`, the task's signal is that controller's: the caller aborts it
   * directly, and the deadline aborts it too.
   */
  async run<T>(
    task: (signal: AbortSignal) => Promise<T>,
    options: { signal?: AbortSignal; controller?: AbortController } = {},
  ): Promise<T> {
    const outer = options.signal;
    if (outer?.aborted) throw outer.reason;
    if (options.controller?.signal.aborted) throw options.controller.signal.reason;
    const { concurrency, queueLength, deadlineMs } = this.settings;
    if (this.running >= concurrency && this.waiting.length >= queueLength) {
      throw new ApiError(
        503,
        `The server is at capacity (${this.running} requests running, ${this.waiting.length} waiting); ` +
          `retry in ${OVERLOADED_RETRY_AFTER_S} s.`,
        'overloaded',
        { headers: { 'retry-after': String(OVERLOADED_RETRY_AFTER_S) } },
      );
    }
    // The caller's own controller when it gives one (one less controller and listener per request), else a new one.
    const controller = options.controller ?? new AbortController();
    // Backends listen on this one signal from many places (one per upstream call).
    setMaxListeners(0, controller.signal);
    const timer = setTimeout(() => {
      controller.abort(
        new ApiError(
          504,
          `The request did not finish within ${deadlineMs} ms. Try again later, or ask fewer questions at once.`,
          'deadline_exceeded',
        ),
      );
    }, deadlineMs);
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      // A free slot is taken at once, without waiting a turn.
      if (this.running < concurrency) this.running++;
      else await this.wait(controller.signal);
      return await this.execute(task, controller.signal);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  /** Waits for a slot to be handed over; leaves the queue if the signal aborts. */
  private wait(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        wake: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      this.waiting.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A finished task hands its slot straight to the next waiter (no newcomer can slip in between). */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.wake();
    else this.running--;
  }

  /** Runs the task in the slot already taken; settles early on abort, releases the slot when the task settles. */
  private execute<T>(task: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) {
      this.release();
      return Promise.reject(signal.reason);
    }
    let work: Promise<T>;
    try {
      work = task(signal);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      () => this.release(),
      () => this.release(),
    );
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          // A task that fails because it was aborted reports why it was aborted.
          reject(signal.aborted ? signal.reason : error);
        },
      );
    });
  }
}
