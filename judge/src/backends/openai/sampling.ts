// The fallback for upstreams that give no logprobs (Anthropic's OpenAI layer ignores them, Gemini 3 returns none,
// OpenAI's reasoning models answer 400): ask the same prompt k times at temperature 1, one completion each (`n` must
// be 1 on Anthropic's layer), read the label each reply starts with, and count per label.
// The estimate is the model's own sampling distribution, smoothed with half a sample per label (Jeffreys' prior) so
// a label never drawn keeps some probability; it is not calibrated, and its resolution is 1/k.
// Coverage is the share of replies that named a label.
import type { QuestionScores } from '../../engine/backend';
import { normaliseToken } from './fold';

/** The label a reply names, or undefined: "B", "B) billing", "(b", " Yes, because…" → B / Yes. */
export function labelOfReply(reply: string, labels: string[]): string | undefined {
  const words = reply.trim().split(/\s+/u);
  const first = normaliseToken(words[0] ?? '').replace(/[,;!?].*$/u, '');
  if (first === '') return undefined;
  return labels.find((label) => label.toLowerCase() === first);
}

/** Counts of sampled labels → scores (log of count + ½) and coverage (labelled replies / replies). */
export function scoresFromSamples(replies: string[], labels: string[]): QuestionScores & { labelled: number } {
  const counts = labels.map(() => 0);
  let labelled = 0;
  for (const reply of replies) {
    const label = labelOfReply(reply, labels);
    if (label === undefined) continue;
    counts[labels.indexOf(label)]++;
    labelled++;
  }
  return {
    logprobs: counts.map((count) => Math.log(count + 0.5)),
    coveredMass: replies.length === 0 ? 0 : labelled / replies.length,
    labelled,
  };
}
