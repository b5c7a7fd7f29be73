// Errors the assistant's domain raises for bad input. Each names the field, so a node can report it per item.
import { FieldError } from 'systemone-judge/core';

export { FieldError };

/** A value the caller gave is missing, malformed or out of range. */
export class AssistantInputError extends FieldError {}

/** A row the caller asked for does not exist for this user (or belongs to someone else). */
export class AssistantNotFoundError extends FieldError {}
