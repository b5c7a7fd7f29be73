// An inference worker thread: loads the models, then answers the main thread's requests one at a time.
// ONNX Runtime's session.run holds the thread that calls it for the whole run; here that is this worker, never
// the server's main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { BackendError } from '../../engine/backend';
import { LocalInference } from './inference';
import type { WorkerData, WorkerFailure, WorkerReply, WorkerRequest } from './worker-protocol';

const port = parentPort!;
const { settings, cancel } = workerData as WorkerData;
const cancelledJob = new Int32Array(cancel);
const send = (reply: WorkerReply) => port.postMessage(reply);

function failure(error: unknown): WorkerFailure {
  if (error instanceof BackendError) return { message: error.message, status: error.status, code: error.code };
  const status = (error as { status?: unknown }).status;
  // A 400 (e.g. a label that encodes to no tokens) keeps its status; anything else is the model failing.
  return { message: (error as Error).message ?? String(error), status: status === 400 ? 400 : undefined };
}

async function main(): Promise<void> {
  let inference: LocalInference;
  try {
    inference = await LocalInference.load(settings);
  } catch (error) {
    send({ type: 'load-failed', message: (error as Error).message });
    return;
  }
  const graphs = Object.fromEntries(settings.models.map((m) => [m.id, inference.model(m.id).graph]));
  send({ type: 'ready', graphs });

  // One request at a time, in arrival order.
  let queue = Promise.resolve();
  port.on('message', (request: WorkerRequest) => {
    queue = queue.then(() => handle(inference, request));
  });
}

async function handle(inference: LocalInference, request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case 'score': {
      const before = { ...inference.stats };
      try {
        const result = await inference.score(request.job, () => Atomics.load(cancelledJob, 0) === request.id);
        send({ id: request.id, type: 'done', value: result });
      } catch (error) {
        const stats = {
          runs: inference.stats.runs - before.runs,
          tokens: inference.stats.tokens - before.tokens,
          paddingTokens: inference.stats.paddingTokens - before.paddingTokens,
        };
        send({ id: request.id, type: 'failed', error: failure(error), stats });
      }
      return;
    }
    case 'clear-cache':
      inference.cache.clear();
      send({ id: request.id, type: 'done', value: null });
      return;
    case 'cache-size':
      send({ id: request.id, type: 'done', value: inference.cache.size });
      return;
  }
}

void main();
