// The main thread's side of the inference workers: starts them, hands each job to a free one (preferring the worker
// whose KV cache last saw the job's state), queues the rest in arrival order, and stops jobs whose caller has gone.
// The server's admission queue decides how many requests are judged at once; this pool decides which worker runs
// a job. A job keeps its admission slot until its worker really stops (a native run cannot be interrupted; the
// worker checks the cancel flag before every run).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BackendError } from '../../engine/backend';
import type { OnnxRunStats } from './feeds-and-run';
import type { InferenceSettings } from './inference';
import { cancelledError, type JobResult, type PreparedJob } from './job';
import type { GraphInfo } from './graph-layout';
import type { WorkerData, WorkerFailure, WorkerReply, WorkerRequest } from './worker-protocol';

/** Most states whose worker the pool remembers. */
const AFFINITY_ENTRIES = 4096;

function spawn(data: WorkerData): Worker {
  if (__filename.endsWith('.js')) return new Worker(join(__dirname, 'inference-worker.js'), { workerData: data });
  // Running from the TypeScript sources (tests, tools under tsx): the worker loads them through tsx too.
  const tsx = createRequire(__filename).resolve('tsx/cjs');
  const entry = join(__dirname, 'inference-worker.ts');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: data,
  });
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface QueuedJob {
  id: number;
  job: PreparedJob;
  signal?: AbortSignal;
  resolve(result: JobResult): void;
  reject(error: unknown): void;
  /** Stops listening to the signal once the job leaves the queue. */
  detach(): void;
}

class WorkerSlot {
  readonly worker: Worker;
  readonly cancel = new Int32Array(new SharedArrayBuffer(4));
  readonly pending = new Map<number, Pending>();
  running?: QueuedJob;
  /** Whether it has loaded every model (a worker that never did is not replaced when it stops). */
  loaded = false;
  ready: Promise<Record<string, GraphInfo>>;

  constructor(
    settings: InferenceSettings,
    onJobReply: (slot: WorkerSlot, reply: WorkerReply) => void,
    onExit: (slot: WorkerSlot, error: Error) => void,
  ) {
    this.worker = spawn({ settings, cancel: this.cancel.buffer as SharedArrayBuffer });
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      const onFirst = (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          this.loaded = true;
          resolve(reply.graphs);
        } else if (reply.type === 'load-failed') reject(new Error(reply.message));
        this.worker.off('message', onFirst);
        this.worker.on('message', (r: WorkerReply) => onJobReply(this, r));
      };
      this.worker.on('message', onFirst);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`the inference worker exited with code ${code}`)));
    });
    this.worker.on('error', (error) => onExit(this, error));
    this.worker.on('exit', (code) => onExit(this, new Error(`the inference worker exited with code ${code}`)));
  }

  send(request: WorkerRequest): void {
    this.worker.postMessage(request);
  }
}

function toError(failure: WorkerFailure, model: string): Error {
  if (failure.code) return new BackendError(failure.message, failure.status ?? 502, failure.code);
  return new BackendError(`ONNX model ${model} failed: ${failure.message}`, 502);
}

export class InferencePool {
  readonly stats: OnnxRunStats = { runs: 0, tokens: 0, paddingTokens: 0 };
  private readonly slots: WorkerSlot[] = [];
  private readonly idle: WorkerSlot[] = [];
  private readonly queue: QueuedJob[] = [];
  private readonly affinity = new Map<string, WorkerSlot>();
  private nextId = 1;
  private closed = false;

  private constructor(private readonly settings: InferenceSettings) {}

  /** Starts `workers` threads and waits until each has loaded every model; returns the graphs they found. */
  static async start(
    settings: InferenceSettings,
    workers: number,
  ): Promise<{ pool: InferencePool; graphs: Record<string, GraphInfo> }> {
    const pool = new InferencePool(settings);
    for (let i = 0; i < workers; i++) pool.slots.push(pool.newSlot());
    let graphs: Record<string, GraphInfo>[];
    try {
      graphs = await Promise.all(pool.slots.map((s) => s.ready));
    } catch (error) {
      await pool.close();
      throw error;
    }
    pool.idle.push(...pool.slots);
    return { pool, graphs: graphs[0] };
  }

  private newSlot(): WorkerSlot {
    return new WorkerSlot(
      this.settings,
      (slot, reply) => this.onReply(slot, reply),
      (slot, error) => this.onExit(slot, error),
    );
  }

  /** Runs a job on a worker. An abort while queued removes it; while running, stops it before its next run. */
  score(job: PreparedJob, signal?: AbortSignal): Promise<JobResult> {
    if (this.closed) return Promise.reject(new BackendError('the ONNX backend is closed', 503, 'backend_closed'));
    if (signal?.aborted) return Promise.reject(cancelledError());
    if (this.slots.length === 0)
      return Promise.reject(new BackendError('no ONNX inference worker is running', 503, 'backend_closed'));
    return new Promise<JobResult>((resolve, reject) => {
      const queued: QueuedJob = { id: this.nextId++, job, signal, resolve, reject, detach: () => {} };
      const onAbort = () => {
        const index = this.queue.indexOf(queued);
        if (index !== -1) {
          this.queue.splice(index, 1);
          queued.detach();
          reject(cancelledError());
          return;
        }
        const slot = this.slots.find((s) => s.running === queued);
        if (slot) Atomics.store(slot.cancel, 0, queued.id);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queued.detach = () => signal?.removeEventListener('abort', onAbort);
      this.queue.push(queued);
      this.dispatch();
    });
  }

  /** Gives queued jobs to idle workers: first a job whose state that worker holds, else the oldest job. */
  private dispatch(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      let slotIndex = 0;
      let jobIndex = 0;
      const preferred = this.affinity.get(this.queue[0].job.stateKey);
      if (preferred && this.idle.includes(preferred)) slotIndex = this.idle.indexOf(preferred);
      else {
        // The oldest job has no idle worker of its own: let an idle worker take a job it has the state of, if any.
        const slot = this.idle[0];
        const own = this.queue.findIndex((q) => this.affinity.get(q.job.stateKey) === slot);
        if (own > 0) jobIndex = own;
      }
      const [slot] = this.idle.splice(slotIndex, 1);
      const [queued] = this.queue.splice(jobIndex, 1);
      this.remember(queued.job.stateKey, slot);
      slot.running = queued;
      slot.worker.ref();
      slot.send({ id: queued.id, type: 'score', job: queued.job });
    }
  }

  private remember(stateKey: string, slot: WorkerSlot): void {
    this.affinity.delete(stateKey);
    this.affinity.set(stateKey, slot);
    if (this.affinity.size > AFFINITY_ENTRIES) this.affinity.delete(this.affinity.keys().next().value!);
  }

  private onReply(slot: WorkerSlot, reply: WorkerReply): void {
    if (reply.type === 'ready' || reply.type === 'load-failed') return;
    const job = slot.running;
    if (job && job.id === reply.id) {
      slot.running = undefined;
      job.detach();
      if (reply.type === 'done') {
        const result = reply.value as JobResult;
        this.count(result.stats);
        job.resolve(result);
      } else {
        if (reply.stats) this.count(reply.stats);
        job.reject(toError(reply.error, job.job.model));
      }
      if (!this.closed) {
        slot.worker.unref();
        this.idle.push(slot);
        this.dispatch();
      }
      return;
    }
    const pending = slot.pending.get(reply.id);
    if (!pending) return;
    slot.pending.delete(reply.id);
    if (reply.type === 'done') pending.resolve(reply.value);
    else pending.reject(new Error(reply.error.message));
  }

  private count(stats: OnnxRunStats): void {
    this.stats.runs += stats.runs;
    this.stats.tokens += stats.tokens;
    this.stats.paddingTokens += stats.paddingTokens;
  }

  /** A worker that died: its job fails, a new worker takes its place. */
  private onExit(slot: WorkerSlot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const idleIndex = this.idle.indexOf(slot);
    if (idleIndex !== -1) this.idle.splice(idleIndex, 1);
    for (const [key, s] of this.affinity) if (s === slot) this.affinity.delete(key);
    const lost = new BackendError(`the ONNX inference worker stopped: ${error.message}`, 502);
    if (slot.running) {
      slot.running.detach();
      slot.running.reject(lost);
      slot.running = undefined;
    }
    for (const p of slot.pending.values()) p.reject(lost);
    slot.pending.clear();
    if (this.closed) return;
    if (slot.loaded) {
      const replacement = this.newSlot();
      this.slots.push(replacement);
      replacement.ready.then(
        () => {
          if (this.closed || !this.slots.includes(replacement)) return;
          this.idle.push(replacement);
          this.dispatch();
        },
        (failed: Error) => this.onExit(replacement, failed),
      );
    }
    if (this.slots.length === 0) {
      // No worker left to run anything: fail what waits rather than let it wait for ever.
      for (const queued of this.queue.splice(0)) {
        queued.detach();
        queued.reject(lost);
      }
    }
  }

  /** Sends a request to every worker; resolves with their answers. */
  private broadcast(type: 'clear-cache' | 'cache-size'): Promise<unknown[]> {
    return Promise.all(
      this.slots.map(
        (slot) =>
          new Promise((resolve, reject) => {
            const id = this.nextId++;
            slot.pending.set(id, { resolve, reject });
            slot.send({ id, type });
          }),
      ),
    );
  }

  async clearCache(): Promise<void> {
    await this.broadcast('clear-cache');
  }

  /** States held in the workers' KV caches, all together. */
  async cachedStates(): Promise<number> {
    return ((await this.broadcast('cache-size')) as number[]).reduce((a, b) => a + b, 0);
  }

  /** Fails queued jobs and stops every worker (a running native call ends first). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const queued of this.queue.splice(0)) {
      queued.detach();
      queued.reject(new BackendError('the ONNX backend is closed', 503, 'backend_closed'));
    }
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
