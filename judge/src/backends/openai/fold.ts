// Folding an OpenAI-style top_logprobs list onto a label set.
// A token counts for a label when, with surrounding whitespace and brackets/punctuation stripped, it equals the
// label case-insensitively: " B", "b", "(B", "B)" all count for "B"; "Yes", " yes", "YES" for "Yes".
// Several variants of one label add up (log-sum-exp).
// Labels missing from the list: the model gave each less than the last listed token, and together they share
// what the list leaves uncovered, so each gets min(lowest listed probability, uncovered mass / missing count).
export interface TopLogprob {
  token: string;
  logprob: number;
}

export interface FoldedScores {
  /** Natural-log scores per label, not normalised over the labels. */
  logprobs: number[];
  /** Probability mass of the listed tokens that matched a label, in [0, 1]. */
  coveredMass: number;
  /** Labels that had no listed token. */
  missing: string[];
}

export function normaliseToken(token: string): string {
  return token
    .trim()
    .replace(/^[\s([{"'*_`:.\-]+/u, '')
    .replace(/[\s)\]}"'*_`:.,\-]+$/u, '')
    .toLowerCase();
}

export function foldTopLogprobs(top: TopLogprob[], labels: string[]): FoldedScores {
  const index = new Map(labels.map((label, i) => [label.toLowerCase(), i]));
  const mass = labels.map(() => 0);
  let listedMass = 0;
  let lowest = 1;
  for (const { token, logprob } of top) {
    const p = Math.exp(logprob);
    listedMass += p;
    lowest = Math.min(lowest, p);
    const labelIndex = index.get(normaliseToken(token));
    if (labelIndex !== undefined) mass[labelIndex] += p;
  }
  const coveredMass = Math.min(
    1,
    mass.reduce((a, b) => a + b, 0),
  );
  const missing = labels.filter((_, i) => mass[i] === 0);
  const uncoveredShare = missing.length === 0 ? 0 : Math.max(0, 1 - listedMass) / missing.length;
  const missingMass = Math.min(lowest, uncoveredShare);
  return {
    logprobs: mass.map((m) => Math.log(m > 0 ? m : missingMass)),
    coveredMass,
    missing,
  };
}
