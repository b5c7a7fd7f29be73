// A yes/no the model passes as text ("true", "false" or empty): anything else is an error naming the field.
import { AssistantInputError } from 'assistant-core';

export function flag(value: unknown, field: string): boolean {
  if (value === true || value === false) return value;
  const text = value === undefined || value === null ? '' : String(value).trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new AssistantInputError(field, 'must be true, false or empty');
}
