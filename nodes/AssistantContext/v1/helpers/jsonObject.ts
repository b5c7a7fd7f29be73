// A JSON object parameter: an object, JSON text of one, or empty.
import type { IDataObject } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';

/** The object, or undefined when empty; anything else is an AssistantInputError naming `field`. */
export function jsonObject(value: unknown, field: string): IDataObject | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      return jsonObject(JSON.parse(value), field);
    } catch (error) {
      if (error instanceof AssistantInputError) throw error;
      throw new AssistantInputError(field, 'must be a JSON object');
    }
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw new AssistantInputError(field, 'must be a JSON object');
  return value as IDataObject;
}
