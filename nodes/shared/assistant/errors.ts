// Errors the assistant's domain raises for bad input. Each names the field, so a node can report it per item.

export class AssistantInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'AssistantInputError';
  }
}

/** A row the caller asked for does not exist for this user (or belongs to someone else). */
export class AssistantNotFoundError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'AssistantNotFoundError';
  }
}
