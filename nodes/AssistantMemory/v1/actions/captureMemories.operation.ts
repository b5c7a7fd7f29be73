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

const properties: INodeProperties[] = [nowProperty];

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

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
  embedder: Embedder | undefined,
): Promise<IDataObject> {
  const now = nowParameter(this, itemIndex);
  const batch = await nextCaptureBatch(pool, { now });
  if (!batch) return { captured: false };
  const { userId, sessionId, fromTurnId, toTurnId, confirmed } = batch;
  const read = { captured: true, userId, sessionId, fromTurnId, toTurnId, confirmed };
  if (batch.sourceText === '') {
    await finishCaptureBatch(pool, batch, { status: 'applied' }, { now });
    return { ...read, outcome: 'empty', modelCalls: 0 };
  }
  const endpoint = await chatModelEndpoint(this, itemIndex);
  let result: Awaited<ReturnType<typeof extract>>;
  try {
    result = await extract(this, pool, endpoint, batch);
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
