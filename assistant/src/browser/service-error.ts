// An error the browser service answers in its envelope (protocol.ts): a code, a message for the caller, the field.
import type { BrowserErrorCode } from './protocol';

export class ServiceError extends Error {
  constructor(
    readonly code: BrowserErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
