// Maps a failure of the agent (its LLM or a tool) to a meaningful answer: 504 when something timed out, 502 when
// the model provider or a tool failed. The caller gets a short, stable message, not an internal stack.
import { httpError, type HttpResult } from './http-result';

export const CHAT_APOLOGY = "Sorry, I couldn't answer that just now: my language model or one of my tools failed. Please try again in a moment.";
export const CHAT_TIMEOUT_APOLOGY = 'Sorry, that took too long and I gave up. Please try again in a moment.';

const TIMEOUT = /time(d)?[ -]?out|ETIMEDOUT|ESOCKETTIMEDOUT|deadline exceeded|aborted due to timeout/i;

export function describeFailure(errorMessage: unknown): HttpResult & { timedOut: boolean; apology: string } {
  const text = typeof errorMessage === 'string' ? errorMessage : JSON.stringify(errorMessage ?? 'unknown error');
  if (TIMEOUT.test(text)) {
    return { ...httpError(504, 'upstream_timeout', 'The language model or a tool did not answer in time'), timedOut: true, apology: CHAT_TIMEOUT_APOLOGY };
  }
  return { ...httpError(502, 'upstream_failed', 'The language model or a tool failed; the assistant could not answer'), timedOut: false, apology: CHAT_APOLOGY };
}
