// What the web tools raise besides bad input (AssistantInputError) and the guard's refusals (OutboundRefusedError).
import { FieldError } from 'systemone-judge/core';

/** A page that was allowed but could not be read: an HTTP error, too large, too slow, an unreadable type. */
export class PageReadError extends FieldError {
  constructor(reason: string) {
    super('url', reason);
  }
}

/**
 * The search engine did not give results: it refused (a bot check), rate-limited, timed out, answered something
 * unexpected, or could not be reached. Not the caller's input, so not a FieldError; the message says what to do.
 */
export class WebSearchError extends Error {
  constructor(
    readonly engine: string,
    message: string,
  ) {
    super(message);
    this.name = 'WebSearchError';
  }
}
