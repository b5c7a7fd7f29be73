// When a node's waiting or looping work must stop: n8n's cancel signal for this execution (the run was stopped
// through the API or the editor, or a top-level run timed out) or the calling run's deadline, whichever comes first.
// n8n checks a sub-execution's own time limit only between nodes, and stopping a parent does not stop its children,
// so the agent passes its deadline to every tool as an input and the nodes that wait take it here.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';

import { parameter } from './parameters';

export const deadlineProperty: INodeProperties = {
  displayName: 'Run Deadline',
  name: 'deadline',
  type: 'string',
  default: '',
  placeholder: 'e.g. 2026-11-28T18:30:00Z',
  description:
    'When the calling run must be done (ISO 8601; the agent passes its own to every tool). Empty: the node stops only when n8n stops this execution.',
};

/** The run was stopped, or its deadline passed, before the work finished. */
export class RunStoppedError extends Error {
  constructor(
    readonly why: 'stopped' | 'deadline',
    message: string,
  ) {
    super(message);
    this.name = 'RunStoppedError';
  }
}

/** The Run Deadline parameter: undefined when empty; a clear error naming the field when it is not a time. */
export function readDeadline(value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const deadline = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (!deadline || Number.isNaN(deadline.getTime())) {
    throw new AssistantInputError('deadline', 'must be a time in ISO 8601, e.g. 2026-11-28T18:30:00Z');
  }
  return deadline;
}

const deadlinePassed = (deadline: Date) => `the run's deadline (${deadline.toISOString()}) passed`;

export interface RunLimit {
  /** Aborted when the run is stopped or its deadline passes; its reason is a RunStoppedError. */
  signal: AbortSignal;
  deadline: Date | undefined;
}

/**
 * Why the work stopped: the signal's reason, or the deadline when it has passed and its timer has not fired yet (a
 * wait that checks the deadline itself may notice first). Undefined while the run may go on.
 */
export function stopReason(limit: RunLimit, now = Date.now()): string | undefined {
  if (limit.signal.aborted) return (limit.signal.reason as RunStoppedError).message;
  if (limit.deadline && now >= limit.deadline.getTime()) return deadlinePassed(limit.deadline);
  return undefined;
}

/** Runs `work` with the item's run limit (its signal may be aborted already); the deadline's timer ends with it. */
export async function withinRunLimit<T>(
  context: IExecuteFunctions,
  itemIndex: number,
  work: (limit: RunLimit) => Promise<T>,
): Promise<T> {
  const deadline = readDeadline(parameter(context, 'deadline', itemIndex));
  const controller = new AbortController();
  const cancel = context.getExecutionCancelSignal?.();
  const onCancel = () => controller.abort(new RunStoppedError('stopped', 'the run was stopped'));
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener('abort', onCancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  if (deadline) {
    const expire = () => controller.abort(new RunStoppedError('deadline', deadlinePassed(deadline)));
    const left = deadline.getTime() - Date.now();
    if (left <= 0) expire();
    else timer = setTimeout(expire, left);
  }
  try {
    return await work({ signal: controller.signal, deadline });
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
  }
}
