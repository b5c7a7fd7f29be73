// Add Check: watch a page (optionally one part of it), a feed, a search or a JSON value on a schedule; the first run
// records the baseline silently. With Notify When, each change goes through the Judge first.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { addCheck } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { webTools } from '../../../shared/transport/webTools';
import { judgeProblem } from '../transport/judgeProbe';

const text = (name: string, displayName: string, description: string, required = false): INodeProperties => ({
  displayName,
  name,
  type: 'string',
  required,
  default: '',
  description,
});

const properties: INodeProperties[] = [
  userIdProperty,
  text('what', 'What', 'A URL to watch, or a search query to watch for new results', true),
  text('schedule', 'Schedule', 'Every 15 minutes, every weekday at 7:30, cron 30 7 * * 1-5', true),
  text('notifyWhen', 'Notify When', 'Optional: tell only about changes the Judge finds meet this condition'),
  text('kind', 'Kind', 'Optional: page, feed, search or json (read from What and Path when empty)'),
  text('url', 'URL', 'Optional: the URL, when What is a description'),
  text('selector', 'CSS Selector', 'Optional, pages only: watch just this part, e.g. #price'),
  text('path', 'JSON Path', 'JSON only: the value to watch, e.g. data.price'),
  text('condition', 'Condition', 'JSON only: changed (default), above or below'),
  text('threshold', 'Threshold', 'JSON only: the number for above or below'),
  text('notifyThreshold', 'Judge Threshold', "Optional: the Judge's yes probability needed to notify (default 0.5)"),
  nowProperty,
];

const displayOptions = { show: { operation: ['addCheck'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const read = (name: string) => parameter(this, name, itemIndex);
  const result = await addCheck(
    pool,
    read('userId'),
    {
      what: read('what'),
      schedule: read('schedule'),
      notifyWhen: read('notifyWhen'),
      kind: read('kind'),
      url: read('url'),
      selector: read('selector'),
      path: read('path'),
      condition: read('condition'),
      threshold: read('threshold'),
      notifyThreshold: read('notifyThreshold'),
    },
    nowParameter(this, itemIndex),
    { guard: webTools().guard, judgeProblem: () => judgeProblem(this) },
  );
  return asData(result);
}
