// Capture Memories: the next idle session's batch (assistant/src/memory/capture.ts) is sent to the chat model
// through the gateway (job "capture", counted under the caps), its extraction validated in code, asked once more
// with the validation error, then applied to the graph and memories through the write gate, or dropped and recorded.
// A failed model call (a spent budget, an outage) fails the item and leaves the batch to be read again next time.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import {
  AssistantInputError,
  applyExtraction,
  extractionRequest,
  finishCaptureBatch,
  getInstanceSettings,
  nextCaptureBatch,
  readExtraction,
  validateExtraction,
  withCaller,
  type CaptureBatch,
  type Embedder,
  type Extraction,
} from 'assistant-core';

import { asData, nowParameter, nowProperty } from '../../../shared/helpers/parameters';
import { chatModelEndpoint, ChatModelError, postChatCompletion, type ChatModelEndpoint } from '../transport/chatModel';

const properties: INodeProperties[] = [
  nowProperty,
  {
    displayName: 'Most Batches',
    name: 'maxBatches',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 50 },
    default: 5,
    description: 'How many idle conversations one run reads at most, one after the other (each its own item)',
  },
];

const displayOptions = { show: { operation: ['captureMemories'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** Asks for the extraction, once more with the validation error; the error of the second invalid answer otherwise. */
async function extract(
  context: IExecuteFunctions,
  pool: Pool,
  endpoint: ChatModelEndpoint,
  batch: CaptureBatch,
): Promise<{ extraction?: Extraction; error?: string; modelCalls: number }> {
  const { chatModel, modelTimeoutSeconds } = await getInstanceSettings(pool);
  const model = withCaller(chatModel, { job: 'capture', user: batch.userId });
  const signal = context.getExecutionCancelSignal?.();
  let error: string | undefined;
  for (let modelCalls = 1; modelCalls <= 2; modelCalls++) {
    const request = extractionRequest(batch, { model, retryError: error });
    const answer = await postChatCompletion(endpoint, request, { timeoutMs: modelTimeoutSeconds * 1000, signal });
    try {
      return { extraction: validateExtraction(readExtraction(answer)), modelCalls };
    } catch (invalid) {
      if (!(invalid instanceof AssistantInputError)) throw invalid;
      error = invalid.message;
    }
  }
  return { error, modelCalls: 2 };
}

/** Up to Most Batches idle conversations, one item each; `{captured: false, busy: true}` while another run captures. */
export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject[]> {
  const most = this.getNodeParameter('maxBatches', itemIndex, 5) as number;
  if (!Number.isSafeInteger(most) || most < 1 || most > 50) {
    throw new AssistantInputError('maxBatches', 'must be an integer from 1 to 50');
  }
  // One capture at a time on the database: a run still waiting for a slow model is not joined by the next minute's.
  const lock = await pool.connect();
  try {
    const held = await lock.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext('assistant.capture')) AS ok`);
    if (!held.rows[0].ok) return [{ captured: false, busy: true }];
    try {
      const items: IDataObject[] = [];
      for (let read = 0; read < most; read++) {
        const item = await captureOne(this, pool, itemIndex, embedder);
        if (item.captured === false) return items.length > 0 ? items : [item];
        items.push(item);
      }
      return items;
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(hashtext('assistant.capture'))`);
    }
  } finally {
    lock.release();
  }
}

/** The next idle conversation: read, extracted, applied or dropped; `{captured: false}` when there is none. */
async function captureOne(
  context: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject> {
  const now = nowParameter(context, itemIndex);
  const batch = await nextCaptureBatch(pool, { now });
  if (!batch) return { captured: false };
  const { userId, sessionId, fromTurnId, toTurnId, confirmed } = batch;
  const read = { captured: true, userId, sessionId, fromTurnId, toTurnId, confirmed };
  if (batch.sourceText === '') {
    await finishCaptureBatch(pool, batch, { status: 'applied' }, { now });
    return { ...read, outcome: 'empty', modelCalls: 0 };
  }
  const endpoint = await chatModelEndpoint(context, itemIndex);
  let result: Awaited<ReturnType<typeof extract>>;
  try {
    result = await extract(context, pool, endpoint, batch);
  } catch (error) {
    if (!(error instanceof ChatModelError)) throw error;
    const kept = `turns ${fromTurnId}-${toTurnId} of session ${sessionId} are captured on a later run`;
    throw new ChatModelError(error.status, `Capture: ${error.message}; ${kept}`, error.code);
  }
  if (!result.extraction) {
    await finishCaptureBatch(pool, batch, { status: 'dropped', error: result.error! }, { now });
    return { ...read, outcome: 'dropped', error: result.error, modelCalls: result.modelCalls };
  }
  const applied = await applyExtraction(pool, userId, result.extraction, {
    now,
    confirmed,
    embedder,
    sourceText: batch.sourceText,
    source: 'capture',
  });
  await finishCaptureBatch(pool, batch, { status: 'applied' }, { now });
  return { ...read, outcome: 'applied', modelCalls: result.modelCalls, ...asData(applied) };
}
