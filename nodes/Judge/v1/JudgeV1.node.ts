import type {
  IExecuteFunctions,
  INodeExecutionData,
  INodeType,
  INodeTypeBaseDescription,
  INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { judgeItems } from './actions/judgeItems.operation';
import { passThrough, INBOUND_KEY_CREDENTIAL } from './actions/passThrough.operation';
import { judgeProperties } from './description';
import { configureOutputs, type JudgeMode } from './helpers/outputs';
import { SYSTEM_ONE_CREDENTIAL } from './helpers/systemOneClient';

export class JudgeV1 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 1,
      defaults: { name: 'Judge' },
      inputs: [NodeConnectionTypes.Main],
      outputs: `={{(${configureOutputs})($parameter)}}`,
      usableAsTool: true,
      credentials: [
        { name: SYSTEM_ONE_CREDENTIAL, required: true },
        { name: INBOUND_KEY_CREDENTIAL, required: true, displayOptions: { show: { mode: ['passThrough'] } } },
      ],
      properties: judgeProperties,
    };
  }

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const mode = this.getNodeParameter('mode', 0, 'judge') as JudgeMode;
    return mode === 'passThrough' ? await passThrough.call(this) : await judgeItems.call(this);
  }
}
