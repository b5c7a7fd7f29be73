// What the router of Assistant Browser v1 dispatches to: one item's result, computed with the browser service.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { BrowserClient } from 'assistant-core/browser';

export interface BrowserOperation {
  execute(this: IExecuteFunctions, browser: BrowserClient, itemIndex: number): Promise<IDataObject>;
}
