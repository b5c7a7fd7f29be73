// Runs the chosen operation of Assistant Memory v1 for each item, on the assistant's database, with the
// embeddings endpoint when the node has one.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Pool } from 'pg';
import type { Embedder } from 'assistant-core';

import { failAllItems } from '../../../shared/helpers/errors';
import { runItems } from '../../../shared/helpers/runItems';
import { assistantDatabase } from '../../../shared/transport/postgres';
import { embedderFor } from '../../../shared/transport/embeddings';
import * as captureMemories from './captureMemories.operation';
import * as consolidateMemories from './consolidateMemories.operation';
import * as consolidationReport from './consolidationReport.operation';
import * as forget from './forget.operation';
import * as get from './get.operation';
import * as listKept from './listKept.operation';
import * as pinMemory from './pinMemory.operation';
import * as recall from './recall.operation';
import * as recent from './recent.operation';
import * as remember from './remember.operation';
import * as restoreMemory from './restoreMemory.operation';
import * as update from './update.operation';

interface MemoryOperation {
  execute(
    this: IExecuteFunctions,
    pool: Pool,
    itemIndex: number,
    embedder: Embedder | undefined,
  ): Promise<IDataObject | IDataObject[]>;
}

export const operations: Record<string, MemoryOperation> = {
  captureMemories,
  consolidateMemories,
  consolidationReport,
  forget,
  get,
  listKept,
  pinMemory,
  recall,
  recent,
  remember,
  restoreMemory,
  update,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  const embedder = await embedderFor(this);
  let pool: Pool;
  try {
    pool = await assistantDatabase(this);
  } catch (error) {
    return failAllItems(this, error);
  }
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, pool, itemIndex, embedder));
}
