// The run limit every waiting node takes: the Run Deadline parameter read strictly, and the signal that aborts at the
// deadline or when n8n stops the execution, whichever comes first, with the reason as a RunStoppedError.
import { describe, expect, it } from 'vitest';
import { AssistantInputError } from 'assistant-core';

import { readDeadline, RunStoppedError, stopReason, withinRunLimit } from '../../../nodes/shared/helpers/runLimit';
import { AssistantBrowser } from '../../../nodes/AssistantBrowser/AssistantBrowser.node';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const contextWith = (deadline: unknown, cancelSignal?: AbortSignal) =>
  executeFunctions(nodeVersion(new AssistantBrowser()), { parameters: { deadline }, cancelSignal });

describe('readDeadline', () => {
  it('reads an ISO time or a Date; empty is no deadline', () => {
    expect(readDeadline('2026-11-28T18:30:00Z')).toEqual(new Date('2026-11-28T18:30:00Z'));
    expect(readDeadline(new Date(5))).toEqual(new Date(5));
    for (const empty of ['', null, undefined]) expect(readDeadline(empty)).toBeUndefined();
  });

  it('refuses what is not a time, naming the field', () => {
    for (const bad of ['soon', 'tomorrow 9:00', 42, {}]) {
      expect(() => readDeadline(bad)).toThrow(AssistantInputError);
      expect(() => readDeadline(bad)).toThrow(/^deadline: must be a time in ISO 8601, e\.g\. 2026-11-28T18:30:00Z$/);
    }
  });
});

describe('withinRunLimit', () => {
  const reasonOf = (signal: AbortSignal) => signal.reason as RunStoppedError;
  const aborted = (signal: AbortSignal) =>
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

  it('aborts at the deadline, saying so', async () => {
    const deadline = new Date(Date.now() + 100);
    const reason = await withinRunLimit(contextWith(deadline.toISOString()), 0, async ({ signal }) => {
      expect(signal.aborted).toBe(false);
      await aborted(signal);
      return reasonOf(signal);
    });
    expect(reason).toBeInstanceOf(RunStoppedError);
    expect(reason).toMatchObject({ why: 'deadline', message: `the run's deadline (${deadline.toISOString()}) passed` });
  });

  it('aborts when the execution is stopped first, and at once when it was stopped already', async () => {
    const execution = new AbortController();
    const later = new Date(Date.now() + 60_000).toISOString();
    const reason = await withinRunLimit(contextWith(later, execution.signal), 0, async ({ signal }) => {
      setTimeout(() => execution.abort(), 50);
      await aborted(signal);
      return reasonOf(signal);
    });
    expect(reason).toMatchObject({ why: 'stopped', message: 'the run was stopped' });
    await withinRunLimit(contextWith('', AbortSignal.abort()), 0, async ({ signal, deadline }) => {
      expect(deadline).toBeUndefined();
      expect(reasonOf(signal).why).toBe('stopped');
    });
  });

  it('a deadline already past aborts at once; without either the signal never aborts', async () => {
    await withinRunLimit(contextWith('2000-01-01T00:00:00Z'), 0, async ({ signal }) => {
      expect(reasonOf(signal).why).toBe('deadline');
    });
    const signal = await withinRunLimit(contextWith(''), 0, async (limit) => limit.signal);
    expect(signal.aborted).toBe(false);
  });

  it('stopReason names a passed deadline even before its timer fired, and nothing while the run may go on', () => {
    const deadline = new Date('2026-11-28T18:30:00Z');
    const limit = { signal: new AbortController().signal, deadline };
    expect(stopReason(limit, deadline.getTime())).toBe("the run's deadline (2026-11-28T18:30:00.000Z) passed");
    expect(stopReason(limit, deadline.getTime() - 1)).toBeUndefined();
    const stopped = new AbortController();
    stopped.abort(new RunStoppedError('stopped', 'the run was stopped'));
    expect(stopReason({ signal: stopped.signal, deadline: undefined })).toBe('the run was stopped');
  });
});
