// Runs the chosen operation of Assistant Reminders v1 for each item, on the assistant's database.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOperation } from '../../../shared/helpers/operations';
import { routeStorageOperation } from '../../../shared/helpers/storageRouter';
import * as cancelReminder from './cancelReminder.operation';
import * as changeAction from './changeAction.operation';
import * as listActions from './listActions.operation';
import * as listReminders from './listReminders.operation';
import * as scheduleAction from './scheduleAction.operation';
import * as setReminder from './setReminder.operation';
import * as updatePreferences from './updatePreferences.operation';

export const operations: Record<string, ItemOperation> = {
  cancelReminder,
  changeAction,
  listActions,
  listReminders,
  scheduleAction,
  setReminder,
  updatePreferences,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  return await routeStorageOperation(this, operations);
}
