// An element's ref as the model gives it ("7", 7): a whole number from the last snapshot.
import { AssistantInputError } from 'assistant-core';

export function requireRef(value: unknown): number {
  const ref = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof ref !== 'number' || !Number.isSafeInteger(ref) || ref < 1) {
    throw new AssistantInputError('ref', 'must be the number of an element in the last page snapshot, e.g. 3');
  }
  return ref;
}
