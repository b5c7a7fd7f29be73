// Wait for Answer: until the user answers, the question expires, or the run stops or reaches its deadline (then the
// question is withdrawn: it expires now, so a late answer is refused rather than passed to nobody). A free question's answer comes back (and is
// then cleared); a one-time code is left for the browser step that types it, so it never passes through here.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { waitForAnswer, withdrawQuestion } from 'assistant-core';

import { userIdProperty } from '../../../shared/helpers/descriptions';
import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty, stopReason, withinRunLimit } from '../../../shared/helpers/runLimit';

const properties: INodeProperties[] = [
  userIdProperty,
  {
    displayName: 'Question ID',
    name: 'questionId',
    type: 'string',
    required: true,
    default: '',
  },
  {
    displayName: 'Take the Answer',
    name: 'takeAnswer',
    type: 'boolean',
    default: true,
    description: 'Whether to return the answer; off for a one-time code, which the step that types it takes',
  },
  deadlineProperty,
];

const displayOptions = { show: { operation: ['waitForAnswer'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const questionId = parameter(this, 'questionId', itemIndex) as string;
  const take = parameter(this, 'takeAnswer', itemIndex) !== false;
  const userId = parameter(this, 'userId', itemIndex);
  const { taken, why } = await withinRunLimit(this, itemIndex, async (limit) => ({
    taken: await waitForAnswer(pool, userId, questionId, { leaveAnswer: !take, ...limit }),
    why: stopReason(limit),
  }));
  if (taken.status === 'answered') {
    return take
      ? { questionId, status: 'answered', answer: taken.answer ?? '', result: `The user answered: ${taken.answer}` }
      : { questionId, status: 'answered', result: 'The user answered.' };
  }
  if (taken.status === 'taken') {
    return { questionId, status: 'taken', result: 'The user answered, and the answer was already used.' };
  }
  if (taken.status === 'waiting') {
    await withdrawQuestion(pool, userId, questionId);
    return {
      questionId,
      status: 'out_of_time',
      result: `Stopped waiting for the user's answer: ${why ?? "the run's time is up"}. Say so briefly.`,
    };
  }
  return {
    questionId,
    status: 'expired',
    result: 'The user did not answer in time; the question expired. Say so, and ask again later if it still matters.',
  };
}
