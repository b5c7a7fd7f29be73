// Bad input that names its field. Every input error of the judge, the assistant and the nodes extends it, so one
// mapping (a 422 entry, a NodeOperationError with itemIndex, a tool message) serves them all.

export class FieldError extends Error {
  constructor(
    /** Where the bad value came from, e.g. `userId`, `Questions[2].Options`, `backend.models[0].dir`. */
    readonly field: string,
    /** What is wrong with it, as a sentence fragment. */
    readonly reason: string,
    /** How the field is shown in the message; the field itself by default. */
    label: string = field,
  ) {
    super(`${label}: ${reason}`);
    this.name = new.target.name;
  }
}

export const isFieldError = (error: unknown): error is FieldError => error instanceof FieldError;
