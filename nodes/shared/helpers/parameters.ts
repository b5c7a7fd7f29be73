// Reading parameters for the assistant-core domain, which validates them itself.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** A parameter read leniently: missing → undefined, so the domain decides what is required. */
export function parameter(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
  return context.getNodeParameter(name, itemIndex, undefined);
}

/** Domain objects are plain JSON already; this narrows the type for n8n. */
export const asData = (value: object): IDataObject => value as unknown as IDataObject;
