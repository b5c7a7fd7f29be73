// Maps a failure to a meaningful answer for the channel: the caller gets a short, stable message in the assistant's
// envelope ({error: {code, message, field?}}), never an internal stack; a chat user gets a short apology.
//   model:   the language model or a tool failed while answering → 504 when something timed out, else 502
//   input:   the message was refused before anything ran (a limit, a bad field) → 413 or 400, naming the field
//   storage: the assistant's database could not be reached, so nothing could be stored → 503, retry later
//   auto:    input when the error names one of the message's fields, else storage (for a step that does both)
import { httpError, type HttpResult } from './http-result';

export const CHAT_APOLOGY =
  "Sorry, I couldn't answer that just now: my language model or one of my tools failed. Please try again in a moment.";
export const CHAT_TIMEOUT_APOLOGY = 'Sorry, that took too long and I gave up. Please try again in a moment.';
export const CHAT_STORAGE_APOLOGY =
  "Sorry, I can't take messages right now: my database is not reachable. Please send it again in a few minutes.";

export const FAILURE_STAGES = ['model', 'input', 'storage', 'auto'] as const;

/** The fields of an incoming message an input error can name. */
const MESSAGE_FIELDS = new Set(['message', 'metadata', 'replyTo', 'sessionId', 'channel', 'externalId', 'userId']);
export type FailureStage = (typeof FAILURE_STAGES)[number];

const TIMEOUT = /time(d)?[ -]?out|ETIMEDOUT|ESOCKETTIMEDOUT|deadline exceeded|aborted due to timeout/i;
const FIELD_ERROR = /^([A-Za-z_][\w.[\]"() -]{0,60}): (.+)$/s;

export type Failure = HttpResult & { timedOut: boolean; apology: string };

export function describeFailure(errorMessage: unknown, stage: FailureStage = 'model'): Failure {
  const text = typeof errorMessage === 'string' ? errorMessage : JSON.stringify(errorMessage ?? 'unknown error');
  if (stage === 'auto') {
    const field = FIELD_ERROR.exec(text.trim())?.[1];
    return describeFailure(text, field !== undefined && MESSAGE_FIELDS.has(field) ? 'input' : 'storage');
  }
  if (stage === 'input') {
    const match = FIELD_ERROR.exec(text.trim());
    const field = match?.[1];
    const tooLong = field === 'message' && /limit is/.test(text);
    const answer = tooLong
      ? httpError(413, 'message_too_long', text.trim(), field)
      : httpError(400, 'invalid_request', text.trim().slice(0, 500), field);
    return { ...answer, timedOut: false, apology: `Sorry, I can't take that message: ${match ? match[2] : text}` };
  }
  if (stage === 'storage') {
    const answer = httpError(
      503,
      'storage_unavailable',
      "The assistant's database could not be reached, so the message was not stored; send it again later",
    );
    return { ...answer, timedOut: false, apology: CHAT_STORAGE_APOLOGY };
  }
  if (TIMEOUT.test(text)) {
    const answer = httpError(504, 'upstream_timeout', 'The language model or a tool did not answer in time');
    return { ...answer, timedOut: true, apology: CHAT_TIMEOUT_APOLOGY };
  }
  const answer = httpError(
    502,
    'upstream_failed',
    'The language model or a tool failed; the assistant could not answer',
  );
  return { ...answer, timedOut: false, apology: CHAT_APOLOGY };
}
