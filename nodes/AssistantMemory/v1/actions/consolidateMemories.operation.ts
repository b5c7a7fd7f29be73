// Consolidate Memories: the users due at `now` (their local quiet hours, not consolidated in 20 hours; none while the
// instance's memoryBudget is 0) one after the other, within that budget, each in one transaction (assistant/src/memory/consolidate.ts): repeats merged, old low-value memories folded
// into summaries the chat model writes through the gateway (job "consolidation", counted under the caps). A failed
// model call (a spent budget, an outage) ends that user's item with the error, leaves their memories as they were,
// and ends the run (the next run tries again).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import {
  AssistantInputError,
  consolidateMemories,
  dueConsolidations,
  getInstanceSettings,
  readSummary,
  summaryRequest,
  withCaller,
  type Summarise,
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
];

const displayOptions = { show: { operation: ['consolidateMemories'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject[]> {
  const most = this.getNodeParameter('maxUsers', itemIndex, 5) as number;
  if (!Number.isSafeInteger(most) || most < 1 || most > 50) {
    throw new AssistantInputError('maxUsers', 'must be an integer from 1 to 50');
  }
  const now = nowParameter(this, itemIndex);
  const due = await dueConsolidations(pool, { now, limit: most });
  if (due.length === 0) return [{ consolidated: false }];
  const endpoint = await chatModelEndpoint(this, itemIndex);
  const { chatModel, modelTimeoutSeconds, memoryBudget: budget } = await getInstanceSettings(pool);
  const signal = this.getExecutionCancelSignal?.();
  const items: IDataObject[] = [];
  for (const { userId } of due) {
    let modelCalls = 0;
    const summarise: Summarise = async (texts) => {
      modelCalls++;
      const model = withCaller(chatModel, { job: 'consolidation', user: userId });
      const answer = await postChatCompletion(endpoint, summaryRequest(texts, { model }), {
        timeoutMs: modelTimeoutSeconds * 1000,
        signal,
      });
      return readSummary(answer);
    };
    try {
      const result = await consolidateMemories(pool, userId, { now, budget, summarise });
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
