// Forget Everything: on the user's own yes to the Forget Question (asked through the ask-user workflow), every
// memory, the knowledge graph, tasks, conversation turns, pending questions and the user's own settings are deleted;
// the user and their identities stay. Code decides from the stored question and the answer: a no, no answer, or a
// question that is not this user's forget question forgets nothing.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { forgetEverythingIfConfirmed } from 'assistant-core';

import { approvalAnswerProperties, userIdProperty } from '../../../shared/helpers/descriptions';
import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [userIdProperty, ...approvalAnswerProperties('forgets')];

const displayOptions = { show: { operation: ['forgetEverything'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  return asData(
    await forgetEverythingIfConfirmed(pool, parameter(this, 'userId', itemIndex), {
      questionId: parameter(this, 'questionId', itemIndex),
      status: parameter(this, 'answerStatus', itemIndex),
      answer: parameter(this, 'answer', itemIndex),
    }),
  );
}
