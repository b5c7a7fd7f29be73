// The state's KV for the layouts with a past: from the cache, or one pass over the state (batch 1) that fills it.
// A one-question call with an uncached state instead runs as a single pass (state + suffix); its KV's state part
// still fills the cache.
import type { QuestionScores } from '../../../engine/backend';
import type { ModelRun } from '../feeds-and-run';
import type { PreparedJob } from '../job';
import type { CachedState, StateKvCache } from '../kv-cache';
import { kvBytes, sliceKv } from '../tensors';
import { combine, finishLabels, firstTokenLogprobs, hasLongLabels, lastColumns, noLaterTokens } from './labels';

/** Bytes of a state KV of `tokens` positions (keys and values of every layer, batch 1). */
function stateKvBytes(run: ModelRun, tokens: number): number {
  const { layers, heads, headDim, kvType } = run.model.graph;
  return 2 * layers * heads * tokens * headDim * (kvType === 'float16' ? 2 : 4);
}

/** One question, cold state: state + suffix in one pass. The KV is fetched only when it is kept or needed. */
async function singlePass(run: ModelRun, job: PreparedJob, cache: StateKvCache): Promise<QuestionScores[]> {
  const q = job.questions[0];
  const S = job.stateIds.length;
  const ids = [...job.stateIds, ...q.suffixIds];
  const keepState = cache.accepts(stateKvBytes(run, S));
  const needPresent = keepState || hasLongLabels(q);
  const ends = lastColumns([ids]);
  const out = await run.run({
    rows: [ids],
    startPositions: [0],
    pastMasks: [[]],
    wantPresent: needPresent,
    reads: ends,
  });
  if (keepState) {
    const stateKv = sliceKv(out.present!, S);
    cache.set(job.stateKey, { tokens: S, kv: stateKv, bytes: kvBytes(stateKv) });
  }
  const [first] = await firstTokenLogprobs(run, out, [q], ends);
  const rest = needPresent
    ? await finishLabels(run, [q], out.present!, [0], [Array<number>(ids.length).fill(1)], [ids.length])
    : noLaterTokens([q]);
  return [combine(first, rest[0])];
}

/**
 * Scores a job with the state's KV: `withState` gets it from the cache or encodes it first; a one-question job
 * with a cold state runs as a single pass instead.
 */
export async function scoreOverState(
  run: ModelRun,
  job: PreparedJob,
  cache: StateKvCache,
  withState: (state: CachedState) => Promise<QuestionScores[]>,
): Promise<QuestionScores[]> {
  let state = cache.get(job.stateKey);
  if (!state && job.questions.length === 1) return singlePass(run, job, cache);
  if (!state) {
    const out = await run.run({
      rows: [job.stateIds],
      startPositions: [0],
      pastMasks: [[]],
      wantPresent: true,
      reads: [],
    });
    state = { tokens: job.stateIds.length, kv: out.present!, bytes: kvBytes(out.present!) };
    cache.set(job.stateKey, state);
  }
  return withState(state);
}
