// Runs the chosen mode. Judge v1 calls its operations modes: "judge" (Judge Items) and "passThrough".
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { NodeOperation } from '../../../shared/helpers/operations';
import * as judgeItems from './judgeItems.operation';
import * as passThrough from './passThrough.operation';

export const modes: Record<string, NodeOperation> = {
  judge: judgeItems,
  passThrough,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const mode = this.getNodeParameter('mode', 0, 'judge') as string;
  if (!Object.hasOwn(modes, mode)) {
    throw new NodeOperationError(this.getNode(), `Mode "${mode}" is not supported`);
  }
  return await modes[mode].execute.call(this);
}
