// What a router dispatches to: an operation module (actions/<operation>.operation.ts).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { Pool } from 'pg';

/** An operation that handles all items itself and returns the node's outputs (Judge, Assistant Channel). */
export interface NodeOperation {
  execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]>;
}

/** An operation of a storage node: one item's result (or a list of items), computed on the assistant's database. */
export interface ItemOperation {
  execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}
