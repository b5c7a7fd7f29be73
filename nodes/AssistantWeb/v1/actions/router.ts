// Runs the chosen operation of Assistant Web v1 for each item. An unknown operation is refused first; settings that
// cannot be read (a bad ASSISTANT_* variable) fail every item, naming the variable.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { WebTools } from 'assistant-core/web';

import { failAllItems } from '../../../shared/helpers/errors';
import { runItems } from '../../../shared/helpers/runItems';
import { webTools } from '../../../shared/transport/webTools';
import type { WebOperation } from './operation';
import * as checkUrl from './checkUrl.operation';
import * as readPage from './readPage.operation';
import * as search from './search.operation';

export const operations: Record<string, WebOperation> = { checkUrl, readPage, search };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  let tools: WebTools;
  try {
    tools = webTools();
  } catch (error) {
    return failAllItems(this, error);
  }
  return await runItems(this, (itemIndex) => operations[operation].execute.call(this, tools, itemIndex));
}
