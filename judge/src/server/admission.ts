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

/**
 * One request's way through the queue, and its cancellation: the caller aborts it (client gone, shutdown), and so
 * does the deadline. Its AbortSignal is only made when something asks for it (a backend reading `job.signal`): work
 * that never looks at it, like an instant backend, costs no AbortController and no listener.
 */
export class Ticket {
  private controller?: AbortController;
  private abortReason: unknown;
  private isAborted = false;
  /** While the ticket waits for a slot or its task runs: what its abort does to that (set by Admission). */
  onAbort?: (reason: unknown) => void;
  /** The deadline's timer, while the ticket is in the queue or running. */
  timer?: NodeJS.Timeout;

  get aborted(): boolean {
    return this.isAborted;
  }

  get reason(): unknown {
    return this.abortReason;
  }

  /** The signal of this ticket, made on first use (aborted already if the ticket is). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // Backends listen on this one signal from many places (one per upstream call).
      setMaxListeners(0, this.controller.signal);
      if (this.isAborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Uses the caller's controller as this ticket's signal: aborting either aborts both. */
  adopt(controller: AbortController): void {
    this.controller = controller;
    setMaxListeners(0, controller.signal);
    if (controller.signal.aborted) this.abort(controller.signal.reason);
    else controller.signal.addEventListener('abort', () => this.abort(controller.signal.reason), { once: true });
  }

  /** Aborts the ticket (once; later calls do nothing): its signal, and its wait or run in the queue. */
  abort(reason?: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.abortReason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    clearTimeout(this.timer);
    this.controller?.abort(this.abortReason);
    const onAbort = this.onAbort;
    this.onAbort = undefined;
    onAbort?.(this.abortReason);
  }
}

interface Waiter {
  wake(): void;
}

/** The deadline of a ticket (a timer callback with arguments: no closure per request). */
function expire(ticket: Ticket, deadlineMs: number): void {
  ticket.abort(
    new ApiError(
      504,
      `The request did not finish within ${deadlineMs} ms. Try again later, or ask fewer questions at once.`,
      'deadline_exceeded',
    ),
  );
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
    const ticket = new Ticket();
    if (options.controller) ticket.adopt(options.controller);
    const onOuterAbort = () => ticket.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      return await this.admit(ticket, (admitted) => task(admitted.signal));
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  /**
   * `run` for a ticket: the task is given the ticket (whose signal is made only if it is read). The promise
   * rejects at once when the ticket aborts (the caller's reason, or 504 `deadline_exceeded` at the deadline); the
   * slot stays taken until the task settles. A full queue rejects with 503 `overloaded`, at once.
   */
  admit<T>(ticket: Ticket, task: (ticket: Ticket) => Promise<T>): Promise<T> {
    if (ticket.aborted) return Promise.reject(ticket.reason);
    const { concurrency, queueLength, deadlineMs } = this.settings;
    if (this.running >= concurrency && this.waiting.length >= queueLength) {
      return Promise.reject(
        new ApiError(
          503,
          `The server is at capacity (${this.running} requests running, ${this.waiting.length} waiting); ` +
            `retry in ${OVERLOADED_RETRY_AFTER_S} s.`,
          'overloaded',
          { headers: { 'retry-after': String(OVERLOADED_RETRY_AFTER_S) } },
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      ticket.timer = setTimeout(expire, deadlineMs, ticket, deadlineMs);
      // A free slot is taken at once, without waiting a turn.
      if (this.running < concurrency) {
        this.running++;
        this.execute(ticket, task, resolve, reject);
      } else this.wait(ticket, task, resolve, reject);
    });
  }

  /** Queues the ticket until a slot is handed over; it leaves the queue if it aborts meanwhile. */
  private wait<T>(
    ticket: Ticket,
    task: (ticket: Ticket) => Promise<T>,
    resolve: (value: T) => void,
    reject: (reason: unknown) => void,
  ): void {
    const waiter: Waiter = { wake: () => this.execute(ticket, task, resolve, reject) };
    ticket.onAbort = (reason) => {
      const index = this.waiting.indexOf(waiter);
      if (index !== -1) this.waiting.splice(index, 1);
      reject(reason);
    };
    this.waiting.push(waiter);
  }

  /** A finished task hands its slot straight to the next waiter (no newcomer can slip in between). */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.wake();
    else this.running--;
  }

  /**
   * Runs the task in the slot already taken: settles early (rejects) if the ticket aborts, and releases the slot
   * when the task really settles.
   */
  private execute<T>(
    ticket: Ticket,
    task: (ticket: Ticket) => Promise<T>,
    resolve: (value: T) => void,
    reject: (reason: unknown) => void,
  ): void {
    if (ticket.aborted) {
      this.release();
      reject(ticket.reason);
      return;
    }
    ticket.onAbort = reject;
    let work: Promise<T>;
    try {
      work = task(ticket);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      (value) => {
        this.release();
        clearTimeout(ticket.timer);
        ticket.onAbort = undefined;
        resolve(value);
      },
      (error: unknown) => {
        this.release();
        clearTimeout(ticket.timer);
        ticket.onAbort = undefined;
        // A task that fails because it was aborted reports why it was aborted.
        reject(ticket.aborted ? ticket.reason : error);
      },
    );
  }
}
