// What the router of Assistant Web v1 dispatches to: one item's result, computed with the web tools.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { WebTools } from 'assistant-core/web';

export interface WebOperation {
  execute(this: IExecuteFunctions, tools: WebTools, itemIndex: number): Promise<IDataObject>;
}
