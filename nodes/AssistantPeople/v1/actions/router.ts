// Runs the chosen operation of Assistant People v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as issuePairingCode from './issuePairingCode.operation';
import * as listPeople from './listPeople.operation';
import * as removePerson from './removePerson.operation';
import * as setDmPolicy from './setDmPolicy.operation';

export const operations: Record<string, ItemOperation> = { issuePairingCode, listPeople, removePerson, setDmPolicy };

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
