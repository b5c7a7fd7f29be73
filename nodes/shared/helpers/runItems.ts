// The results of each input item, paired to it (usually one; a list gives one item each, none gives none); a failed
// item goes through failedItem (errors.ts).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { failedItem } from './errors';

export type ItemHandler = (itemIndex: number) => Promise<IDataObject | IDataObject[]>;

export async function runItems(context: IExecuteFunctions, handler: ItemHandler): Promise<INodeExecutionData[][]> {
  const items = context.getInputData();
  const out: INodeExecutionData[] = [];
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    try {
      const result = await handler(itemIndex);
      for (const json of Array.isArray(result) ? result : [result]) out.push({ json, pairedItem: { item: itemIndex } });
    } catch (error) {
      out.push(failedItem(context, error, itemIndex));
    }
  }
  return [out];
}
