// One result per input item, paired to it; a failed item goes through failedItem (errors.ts).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedItem } from './errors';

export type ItemHandler = (itemIndex: number) => Promise<IDataObject>;

export async function runItems(context: IExecuteFunctions, handler: ItemHandler): Promise<INodeExecutionData[][]> {
  const items = context.getInputData();
  const out: INodeExecutionData[] = [];
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    try {
      out.push({ json: await handler(itemIndex), pairedItem: { item: itemIndex } });
    } catch (error) {
      out.push(failedItem(context, error, itemIndex));
    }
  }
  return [out];
}
