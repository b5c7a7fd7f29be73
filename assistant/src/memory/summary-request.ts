// The chat model request that folds old memories into one summary (consolidate.ts), and the summary read from its
// answer. A static system message first, so a provider's prompt cache keeps it.
import { AssistantInputError } from '../errors';

export const SUMMARY_SYSTEM_PROMPT = [
  'You fold old notes an assistant keeps about its user into one short summary memory.',
  'Keep every name, number, date and preference they state; drop repetition; never add anything they do not say.',
  'Answer with the summary only: plain sentences, no heading, no list markers, at most 1,000 characters.',
].join(' ');

/** The OpenAI-compatible chat completions body asking for the summary of `texts` (oldest first). */
export function summaryRequest(texts: string[], options: { model: string }) {
  return {
    model: options.model,
    temperature: 0,
    messages: [
      { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
      { role: 'user', content: `The notes, oldest first:\n\n${texts.map((text) => `- ${text}`).join('\n')}` },
    ],
  };
}

/** The summary text of a chat completions answer; an answer without text names the missing field. */
export function readSummary(responseBody: unknown): string {
  const choices = (responseBody as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new AssistantInputError('choices', 'the answer has no choices');
  const content = (choices[0] as { message?: { content?: unknown } } | null)?.message?.content;
  if (typeof content !== 'string' || content.trim() === '')
    throw new AssistantInputError('choices[0].message.content', 'the answer has no summary text');
  return content.trim();
}
