// Task fields from the node's collections, as the domain takes them.
import type { IDataObject } from 'n8n-workflow';

/** Options and Filters: Parent Task ID 0 (the default) means no parent. */
export function withoutEmptyParent(fields: IDataObject): IDataObject {
  const input = { ...fields };
  if (input.parentId === 0) delete input.parentId;
  return input;
}

const isNone = (value: unknown) => typeof value === 'string' && value.trim().toLowerCase() === 'none';

/**
 * In Update Fields an empty value leaves a field unchanged (so an expression that resolves to nothing never
 * erases data); Due or Due At "none" and Parent Task ID 0 clear them.
 */
export function updateInput(fields: IDataObject): IDataObject {
  const input = { ...fields };
  if (isNone(input.due)) input.due = null;
  if (isNone(input.dueAt)) input.dueAt = null;
  if (input.parentId === 0) input.parentId = null;
  return input;
}
