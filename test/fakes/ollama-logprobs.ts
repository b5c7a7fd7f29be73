// The fake Ollama's log probabilities: the shape Ollama gives them and the made-up numbers in them. Pure functions.
//
// Real behaviour copied (ollama/ollama at fb30760, Aug 2026; logprobs since 0.12.11, ollama#12899):
// - api/types.go `Logprob` {token, logprob, bytes, top_logprobs: [TokenLogprob {token, logprob, bytes}]}; one entry
//   per generated token; `bytes` is the token's UTF-8 bytes, omitted for an empty token (server/logprob.go
//   `stringToByteInts`); `top_logprobs` is omitted unless top_logprobs > 0 (llm/llama_server.go `convertLogprobs`),
//   and then holds exactly that many alternatives (llama-server's n_probs = max(top_logprobs, 1)).
// - top_logprobs outside 0..20 is 400 "top_logprobs must be between 0 and 20" (server/routes.go `ChatHandler`,
//   `GenerateHandler`).
//
// The numbers: a scripted step gives the first token's alternatives ({top_logprobs: [{token, logprob}]}), the answer
// being the likeliest. Unscripted, a prompt whose latest user message lists "(X) …" options (the judge's prompts, see
// judge/test/fakes/openai-logprobs.ts) gets a distribution over those labels seeded by a SHA-256 of the message, so
// the same prompt always gets the same answer; any other answer token gets logprob ln 0.9 and filler alternatives.
import { createHash } from 'node:crypto';
import { CHARS_PER_TOKEN } from './ollama-prompt';

export const MAX_TOP_LOGPROBS = 20;

export interface FakeTokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[];
}

export interface FakeLogprob extends FakeTokenLogprob {
  top_logprobs?: FakeTokenLogprob[];
}

/** A token and its log probability, as a script gives the first token's alternatives. */
export interface ScriptedTopLogprob {
  token: string;
  logprob: number;
}

function withBytes(token: string, logprob: number): FakeTokenLogprob {
  return token === '' ? { token, logprob } : { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

/** The option labels a prompt lists: every "(X) " at the start of a line after the last "</state>", in order. */
export function optionLabels(text: string): string[] {
  const afterState = text.slice(text.lastIndexOf('</state>') + 1);
  return [...afterState.matchAll(/^\((\w+)\) /gm)].map((match) => match[1]);
}

/** Deterministic alternatives over a prompt's labels (none when it lists none), likeliest first, plus "The". */
export function labelTopLogprobs(text: string): ScriptedTopLogprob[] {
  const labels = optionLabels(text);
  if (labels.length === 0) return [];
  const digest = createHash('sha256').update(text).digest();
  const weights = labels.map((_, index) => (digest[index % digest.length] + 1) ** 2);
  const distractor = (digest[31] + 1) ** 2 / 8;
  const total = weights.reduce((sum, weight) => sum + weight, 0) + distractor;
  const top = labels.map((token, index) => ({ token, logprob: Math.log(weights[index] / total) }));
  top.push({ token: 'The', logprob: Math.log(distractor / total) });
  return top.sort((a, b) => b.logprob - a.logprob);
}

/** The answer's tokens (4 characters each, as the fake's tokenizer) with their logprobs and `topN` alternatives. */
export function answerLogprobs(content: string, topN: number, scriptedTop?: ScriptedTopLogprob[]): FakeLogprob[] {
  const sorted = scriptedTop ? [...scriptedTop].sort((a, b) => b.logprob - a.logprob) : [];
  const tokens: string[] = [];
  if (sorted.length > 0 && content.startsWith(sorted[0].token) && sorted[0].token !== '') tokens.push(sorted[0].token);
  for (let at = tokens[0]?.length ?? 0; at < content.length; at += CHARS_PER_TOKEN)
    tokens.push(content.slice(at, at + CHARS_PER_TOKEN));
  return tokens.map((token, index) => {
    const alternatives =
      index === 0 && sorted.length > 0 && sorted[0].token === token ? sorted : fillerAlternatives(token, topN);
    const entry: FakeLogprob = withBytes(token, alternatives[0].logprob);
    if (topN > 0) entry.top_logprobs = padded(alternatives, topN).map((alt) => withBytes(alt.token, alt.logprob));
    return entry;
  });
}

/** The chosen token at ln 0.9, then fillers sharing the rest. */
function fillerAlternatives(token: string, topN: number): ScriptedTopLogprob[] {
  const fillers = Math.max(1, topN - 1);
  return [
    { token, logprob: Math.log(0.9) },
    ...Array.from({ length: fillers }, (_, index) => ({
      token: `<alt${index + 1}>`,
      logprob: Math.log(0.1 / fillers),
    })),
  ];
}

/** Exactly `topN` alternatives, as llama-server gives: the list cut, or lengthened with ever less likely fillers. */
function padded(alternatives: ScriptedTopLogprob[], topN: number): ScriptedTopLogprob[] {
  const out = alternatives.slice(0, topN);
  const lowest = out[out.length - 1]?.logprob ?? 0;
  for (let index = 1; out.length < topN; index++) out.push({ token: `<pad${index}>`, logprob: lowest - 5 - index });
  return out;
}

/** Ollama's check of top_logprobs (0..20); the message is Ollama's. */
export function topLogprobsError(topLogprobs: number): string | null {
  return topLogprobs < 0 || topLogprobs > MAX_TOP_LOGPROBS ? 'top_logprobs must be between 0 and 20' : null;
}
