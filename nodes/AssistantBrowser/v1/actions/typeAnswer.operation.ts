// Type Answer: waits for the user's answer to a question (a one-time code), takes it from the database and types it
// into the field as a secret; the page as it is then comes back. The code never passes through the workflow's data,
// the model or a log.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { waitForAnswer } from 'assistant-core';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { assistantDatabase } from '../../../shared/transport/postgres';
import { requireRef } from '../helpers/ref';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Question ID',
    name: 'questionId',
    type: 'string',
    required: true,
    default: '',
    description: 'The question the user answers with the code',
  },
  refProperty,
  deadlineProperty,
];

const displayOptions = { show: { operation: ['typeAnswer'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  const pool = await assistantDatabase(this);
  const questionId = parameter(this, 'questionId', itemIndex);
  const taken = await taskStep(this, browser, user, itemIndex, async (signal) => {
    const answer = await waitForAnswer(pool, user, questionId, { signal });
    if (signal.aborted) throw signal.reason;
    return answer;
  });
  if (taken.status === 'taken') {
    return { typed: false, result: 'That code was already used. If the site still asks, a new code is needed.' };
  }
  if (taken.status !== 'answered' || taken.answer === undefined) {
    return {
      typed: false,
      result: 'The user did not send the code in time; the question expired. Tell them, and try again if they want.',
    };
  }
  const code = taken.answer.replace(/\s+/g, '');
  const page = await taskStep(this, browser, user, itemIndex, (signal) =>
    browser.session.fill({ user, ref, value: code, secret: true }, signal),
  );
  return { typed: true, ...stepResult(page, `Typed the code the user sent into [${ref}].`) };
}
