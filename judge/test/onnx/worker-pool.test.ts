// The inference workers' queue: a job waiting for the one busy worker leaves the queue when its caller goes, and
// never runs; with two workers, two jobs run at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import { BackendError, type ScoreJob } from '../../src/engine/backend';
import { renderRequest } from '../../src/engine/render';
import { generate, tempDir } from './fixtures';

const MODEL = 'm';
// Wide enough that a ~1,500-token state takes a while on one thread.
const SLOW = { seed: 5, hidden: 256, layers: 4, heads: 4, maxPositions: 16384, layout: 'no-past' as const };

function job(state: string, signal?: AbortSignal): ScoreJob {
  const questions = { q: { type: 'noul' as const, instructions: 'Is it late?' } };
  return { model: MODEL, state, rendered: renderRequest({ state, questions }), signal };
}

describe('inference worker pool', () => {
  const tmp = tempDir('onnx-pool-');
  let dir: string;
  const backends: OnnxBackend[] = [];

  beforeAll(() => {
    dir = generate(tmp.path, 'slow', SLOW).dir;
  });
  afterAll(async () => {
    for (const b of backends) await b.close();
    tmp.remove();
  });

  const open = async (workers: number) => {
    const backend = await createOnnxBackend({ models: [{ id: MODEL, dir }], intraOpNumThreads: 1, workers });
    backends.push(backend);
    return backend;
  };

  it('drops a queued job whose caller has gone, without running it', async () => {
    const backend = await open(1);
    const order: string[] = [];
    const long = backend.score(job('the parcel was late again '.repeat(250))).then((r) => (order.push('long'), r));
    const caller = new AbortController();
    const queued = backend.score(job('short state', caller.signal)).catch((e: unknown) => (order.push('queued'), e));
    caller.abort();
    const error = await queued;
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('cancelled');
    expect(order).toEqual(['queued']); // refused while the long job still ran
    await long;
    // Only the long job ran: one pass for its one question.
    expect(backend.stats.runs).toBe(1);
  });

  it('runs two jobs at once on two workers', async () => {
    const backend = await open(2);
    const order: string[] = [];
    const long = backend.score(job('the parcel was late again '.repeat(250))).then(() => order.push('long'));
    const short = backend.score(job('short state')).then(() => order.push('short'));
    await Promise.all([long, short]);
    expect(order).toEqual(['short', 'long']);
    expect(backend.stats.runs).toBe(2);
  });
});
