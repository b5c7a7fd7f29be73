// A step of the user's browser task within its run's limit (runLimit.ts). If the run is stopped or its deadline
// passes first, the task is closed (the close waits behind the step the service is finishing) and the step fails
// saying so. A task stays open between steps; if this execution is stopped later while it waits for something else
// (a one-time code), the task is closed then.
import type { IExecuteFunctions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { RunStoppedError, withinRunLimit } from '../../../shared/helpers/runLimit';
import { browserCall } from '../../../shared/transport/browserClient';

/** Closes the user's task; false when it was not open or the service could not be reached. */
export async function closeTask(browser: BrowserClient, user: string): Promise<boolean> {
  try {
    return (await browser.session.close({ user })).closed;
  } catch {
    return false;
  }
}

export async function taskStep<T>(
  context: IExecuteFunctions,
  browser: BrowserClient,
  user: string,
  itemIndex: number,
  step: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  context.onExecutionCancellation?.(() => void closeTask(browser, user));
  return await withinRunLimit(context, itemIndex, async ({ signal }) => {
    try {
      return await browserCall(() => step(signal));
    } catch (error) {
      if (!(error instanceof RunStoppedError)) throw error;
      const closed = await closeTask(browser, user);
      throw new RunStoppedError(
        error.why,
        `${error.message} before the browser step finished; ${closed ? 'the browser task was closed' : 'no browser task was left open'}`,
      );
    }
  });
}
