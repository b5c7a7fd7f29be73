// Run Check: one run the tick claimed. Fetch what the check watches (through the outbound guard), compare it with
// the stored state, and record it; the item says whether the change goes to the Judge before Finish Check Run.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { createCheckObserver, runCheck, type CheckObserver } from 'assistant-core/checks';
import type { WebTools } from 'assistant-core/web';

import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { webTools } from '../../../shared/transport/webTools';

const properties: INodeProperties[] = [
  {
    displayName: 'Run ID',
    name: 'runId',
    type: 'string',
    required: true,
    default: '',
    description: 'The check run the tick started',
  },
  nowProperty,
];

const displayOptions = { show: { operation: ['runCheck'] } };

export const description = updateDisplayOptions(displayOptions, properties);

const observers = new WeakMap<WebTools, CheckObserver>();

function observerFor(tools: WebTools): CheckObserver {
  let observer = observers.get(tools);
  if (!observer) {
    observer = createCheckObserver({ guard: tools.guard, reader: tools.reader, search: tools.search });
    observers.set(tools, observer);
  }
  return observer;
}

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const run = await runCheck(
    pool,
    observerFor(webTools()),
    parameter(this, 'runId', itemIndex),
    nowParameter(this, itemIndex),
  );
  return asData({
    runId: run.runId,
    checkId: run.checkId,
    userId: run.userId,
    outcome: run.outcome,
    summary: run.summary,
    error: run.error,
    needsJudge: run.judge !== null,
    judgeState: run.judge?.state ?? '',
    judgeQuestion: run.judge?.question ?? '',
    judgeThreshold: run.judge?.threshold ?? null,
  });
}
