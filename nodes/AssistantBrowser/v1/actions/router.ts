// Runs the chosen operation of Assistant Browser v1 for each item. An unknown operation is refused first; a browser
// service that is not configured fails every item, naming the variable.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

import { failAllItems } from '../../../shared/helpers/errors';
import { runItems } from '../../../shared/helpers/runItems';
import { browserClient } from '../../../shared/transport/browserClient';
import * as click from './click.operation';
import * as clickTarget from './clickTarget.operation';
import * as close from './close.operation';
import * as codeRequest from './codeRequest.operation';
import * as fill from './fill.operation';
import * as open from './open.operation';
import * as pauseTask from './pauseTask.operation';
import * as screenshot from './screenshot.operation';
import * as select from './select.operation';
import * as snapshot from './snapshot.operation';
import * as typeAnswer from './typeAnswer.operation';
import type { BrowserOperation } from './operation';

export const operations: Record<string, BrowserOperation> = {
  click,
  clickTarget,
  close,
  codeRequest,
  fill,
  open,
  pauseTask,
  screenshot,
  select,
  snapshot,
  typeAnswer,
};

/** Operations that only decide from their input and never call the service. */
const WITHOUT_SERVICE = new Set(['codeRequest']);

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = this.getNodeParameter('operation', 0) as string;
  if (!Object.hasOwn(operations, operation)) {
    throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`);
  }
  let browser: BrowserClient | undefined;
  try {
    browser = WITHOUT_SERVICE.has(operation) ? undefined : browserClient();
  } catch (error) {
    return failAllItems(this, error);
  }
  return await runItems(this, (itemIndex) =>
    operations[operation].execute.call(this, browser as BrowserClient, itemIndex),
  );
}
