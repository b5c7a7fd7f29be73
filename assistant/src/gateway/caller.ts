// Who is calling the model: the gateway reads it from a suffix of the model id, "<model>#job=agent&user=<id>&ref=<id>",
// which every caller of the product adds (the workflows through the chatModel their data carries, the judge, the
// embeddings and transcription transports through their model setting). The suffix never reaches the provider.
import { AssistantInputError } from '../errors';

export interface ModelCaller {
  /** What runs the call: agent, expert:<id>, heartbeat, briefing, action, check, judge, embeddings, transcription… */
  job: string;
  /** The assistant user it runs for, when there is one. */
  user?: string;
  /** The turn, action, check or other row it belongs to. */
  ref?: string;
}

const SEPARATOR = '#';
const JOB = /^[a-z][a-z0-9_-]{0,30}(:[A-Za-z0-9_.-]{1,64})?$/;
const VALUE = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Jobs a person is waiting on: served before background work when the upstream has few slots. */
const INTERACTIVE_JOBS = /^(agent|expert(:.*)?|transcription)$/;

/** `model` with the caller appended as the gateway reads it. */
export function withCaller(model: string, caller: ModelCaller): string {
  const bare = splitCaller(model).model;
  const params = new URLSearchParams({ job: caller.job });
  if (caller.user) params.set('user', caller.user);
  if (caller.ref) params.set('ref', caller.ref);
  return `${bare}${SEPARATOR}${params.toString()}`;
}

/** The provider's model id and the caller; a model id without a suffix is an "unknown" caller. */
export function splitCaller(modelWithCaller: string): { model: string; caller: ModelCaller } {
  const at = modelWithCaller.lastIndexOf(SEPARATOR);
  if (at < 0) return { model: modelWithCaller, caller: { job: 'unknown' } };
  const model = modelWithCaller.slice(0, at);
  const params = new URLSearchParams(modelWithCaller.slice(at + 1));
  const job = params.get('job') ?? '';
  if (!JOB.test(job)) throw new AssistantInputError('model', `the caller suffix needs a job (got "${job}")`);
  const caller: ModelCaller = { job };
  for (const key of ['user', 'ref'] as const) {
    const value = params.get(key);
    if (value === null) continue;
    if (!VALUE.test(value)) throw new AssistantInputError('model', `the caller's ${key} "${value}" is not an id`);
    caller[key] = value;
  }
  if (model === '') throw new AssistantInputError('model', 'the model id before the caller suffix is empty');
  return { model, caller };
}

export const isInteractive = (caller: ModelCaller): boolean => INTERACTIVE_JOBS.test(caller.job);
