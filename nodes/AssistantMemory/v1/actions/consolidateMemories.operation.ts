// Consolidate Memories: the users due at `now` (their local quiet hours, not consolidated in 20 hours; none while the
// instance's memoryBudget is 0) one after the other, within that budget, each in one transaction
// (assistant/src/memory/consolidate.ts): repeats merged, old low-value memories folded into summaries, and the
// summaries of the people and things with new memories rewritten (graph/entity-summaries.ts), all written by the chat
// model through the gateway (job "consolidation", counted under the caps). No summary starts after the time limit
// less the model timeout and a minute: the user's run then keeps what it did and the next run goes on. A failed model
// call (a spent budget, an outage) ends that user's item with the error, leaves their memories as they were, and ends
// the run (the next run tries again).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import {
  AssistantInputError,
  consolidateMemories,
  dueConsolidations,
  entitySummaryRequest,
  getInstanceSettings,
  readSummary,
  summaryRequest,
  withCaller,
  type Summarise,
  type SummariseEntity,
} from 'assistant-core';

import { asData, nowParameter, nowProperty } from '../../../shared/helpers/parameters';
import { chatModelEndpoint, ChatModelError, postChatCompletion } from '../transport/chatModel';

const properties: INodeProperties[] = [
  nowProperty,
  {
    displayName: 'Most Users',
    name: 'maxUsers',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 50 },
    default: 5,
    description: 'How many due users one run consolidates at most, one after the other (each its own item)',
  },
  {
    displayName: 'Time Limit (Seconds)',
    name: 'timeLimitSeconds',
    type: 'number',
    typeOptions: { minValue: 120, maxValue: 86400 },
    default: 1260,
    description:
      "The workflow's execution timeout: no summary starts later than this less the model timeout and a minute; a user left unfinished is consolidated further in the next run",
  },
];

const displayOptions = { show: { operation: ['consolidateMemories'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject[]> {
  const most = this.getNodeParameter('maxUsers', itemIndex, 5) as number;
  if (!Number.isSafeInteger(most) || most < 1 || most > 50) {
    throw new AssistantInputError('maxUsers', 'must be an integer from 1 to 50');
  }
  const limit = this.getNodeParameter('timeLimitSeconds', itemIndex, 1260) as number;
  if (!Number.isSafeInteger(limit) || limit < 120 || limit > 86400) {
    throw new AssistantInputError('timeLimitSeconds', 'must be an integer from 120 to 86,400');
  }
  const started = Date.now();
  const now = nowParameter(this, itemIndex);
  const { chatModel, modelTimeoutSeconds, memoryBudget: budget } = await getInstanceSettings(pool);
  const window = limit - modelTimeoutSeconds - 60;
  if (window <= 0) {
    throw new AssistantInputError(
      'timeLimitSeconds',
      `must exceed the model timeout (${modelTimeoutSeconds} s) by more than a minute, so a summary can finish`,
    );
  }
  // Real time, whatever \`now\` says: the limit is the execution's.
  const stopAt = new Date(started + window * 1000);
  const due = await dueConsolidations(pool, { now, limit: most });
  if (due.length === 0) return [{ consolidated: false }];
  const endpoint = await chatModelEndpoint(this, itemIndex);
  const signal = this.getExecutionCancelSignal?.();
  const items: IDataObject[] = [];
  for (const { userId } of due) {
    if (Date.now() >= stopAt.getTime()) break;
    let modelCalls = 0;
    const model = withCaller(chatModel, { job: 'consolidation', user: userId });
    const ask = async (body: object) => {
      modelCalls++;
      const answer = await postChatCompletion(endpoint, body, { timeoutMs: modelTimeoutSeconds * 1000, signal });
      return readSummary(answer);
    };
    const summarise: Summarise = (texts) => ask(summaryRequest(texts, { model }));
    const summariseEntity: SummariseEntity = ({ name, type, facts }) =>
      ask(entitySummaryRequest(name, type, facts, { model }));
    try {
      const options = { now, budget, summarise, summariseEntity, stopAt };
      const result = await consolidateMemories(pool, userId, options);
      items.push({ consolidated: true, ...asData(result), modelCalls });
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
      const error_ = `Consolidation: ${error.message}; the memories of user ${userId} are as they were`;
      items.push({ consolidated: false, userId, modelCalls, error: error_, status: error.status });
      break;
    }
  }
  return items;
}
