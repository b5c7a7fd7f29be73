// Update Fields as the domain takes them.
import type { IDataObject } from 'n8n-workflow';

/**
 * In Update Fields an empty value leaves a field unchanged (so an expression that resolves to nothing never
 * erases data); "none" empties a list or the source.
 */
export function updateInput(fields: IDataObject): IDataObject {
  const input: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === '' || value === undefined || value === null) continue;
    const none = typeof value === 'string' && value.trim().toLowerCase() === 'none' && key !== 'content';
    input[key] = none ? (key === 'source' ? null : []) : value;
  }
  return input;
}
