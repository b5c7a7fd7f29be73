// Reads the node's "State" parameter: free text, or JSON (an object or array from an expression, or JSON text).
import { FieldError, type SystemOneRequest } from 'systemone-judge/core';

export type StateFormat = 'text' | 'json';

export class StateParameterError extends FieldError {
  constructor(reason: string) {
    super('State', reason);
  }
}

export function readState(value: unknown, format: StateFormat): SystemOneRequest['state'] {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new StateParameterError('is empty; set it to the text or JSON to judge');
  }
  if (typeof value === 'object') return value as SystemOneRequest['state'];
  if (format === 'text') return String(value);
  if (typeof value !== 'string') return String(value);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new StateParameterError(`is not valid JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object') {
    throw new StateParameterError('as JSON must be an object or an array; use the Text format for plain values');
  }
  return parsed as SystemOneRequest['state'];
}
