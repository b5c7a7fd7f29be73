// Scoring a question whose options do not fit one prompt: ask in groups, then combine.
//
// Combination rule (Luce's choice axiom, i.e. independence of irrelevant alternatives):
//   1. split the options into balanced groups of at most `groupSize`, in the caller's order;
//   2. ask each group on its own → within-group log-probs q_g(i), normalised over the group;
//   3. ask a runoff among the group leaders (each group's most likely option, lowest index on ties) → r(leader_g)
//      (the runoff is itself grouped when there are more leaders than `groupSize`);
//   4. log P(i) = q_g(i) − q_g(leader_g) + r(leader_g).
// Ratios inside a group are kept, and each group's mass is set by how its leader fares against the other leaders.
// If the model's preferences obey Luce's axiom this equals asking all options at once.
import type { QuestionScores, RenderedQuestion } from './backend';
import { optionText, renderOptionGroup, type OptionGroup } from './render';

/** Scores one prompt (the state prefix + `group.suffix`); log-probs index-aligned with `group.labels`. */
export type GroupScorer = (group: OptionGroup) => Promise<QuestionScores>;

export function logNormalise(logprobs: number[]): number[] {
  const max = Math.max(...logprobs);
  if (!Number.isFinite(max)) return logprobs.map(() => -Math.log(logprobs.length));
  const logSum = max + Math.log(logprobs.reduce((sum, lp) => sum + Math.exp(lp - max), 0));
  return logprobs.map((lp) => lp - logSum);
}

function argmax(values: number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Split `items` into ceil(n / size) groups of nearly equal size, keeping order. */
export function balancedGroups<T>(items: T[], size: number): T[][] {
  const count = Math.ceil(items.length / size);
  const groups: T[][] = [];
  let start = 0;
  for (let g = 0; g < count; g++) {
    const length = Math.floor(items.length / count) + (g < items.length % count ? 1 : 0);
    groups.push(items.slice(start, start + length));
    start += length;
  }
  return groups;
}

interface SubsetScores {
  /** Normalised log-probs, aligned with the subset's option indexes. */
  logprobs: number[];
  coveredMasses: number[];
}

async function scoreSubset(
  rendered: RenderedQuestion,
  optionIndexes: number[],
  groupSize: number,
  scoreGroup: GroupScorer,
): Promise<SubsetScores> {
  if (optionIndexes.length <= groupSize) {
    const scores = await scoreGroup(renderOptionGroup(rendered, optionIndexes));
    return {
      logprobs: logNormalise(scores.logprobs),
      coveredMasses: scores.coveredMass === undefined ? [] : [scores.coveredMass],
    };
  }
  const groups = balancedGroups(optionIndexes, groupSize);
  const groupScores = await Promise.all(groups.map((group) => scoreSubset(rendered, group, groupSize, scoreGroup)));
  const leaderPositions = groupScores.map((scores) => argmax(scores.logprobs));
  const leaders = groups.map((group, g) => group[leaderPositions[g]]);
  const runoff = await scoreSubset(rendered, leaders, groupSize, scoreGroup);
  const combined = groups.flatMap((_, g) => {
    const within = groupScores[g].logprobs;
    const leaderWithin = within[leaderPositions[g]];
    return within.map((lp) => lp - leaderWithin + runoff.logprobs[g]);
  });
  return {
    logprobs: logNormalise(combined),
    coveredMasses: [...groupScores.flatMap((s) => s.coveredMasses), ...runoff.coveredMasses],
  };
}

/**
 * Score every option of `rendered`, asking in groups when it has more than `groupSize` options.
 * Covered mass is the mean over the prompts asked.
 */
export async function scoreInGroups(
  rendered: RenderedQuestion,
  groupSize: number,
  scoreGroup: GroupScorer,
): Promise<QuestionScores> {
  if (groupSize < 2) throw new Error('groupSize must be at least 2');
  // A single option is certain; there is nothing to ask the model.
  if (rendered.options.length === 1) return { logprobs: [0] };
  const all = rendered.options.map((_, i) => i);
  const { logprobs, coveredMasses } = await scoreSubset(rendered, all, groupSize, scoreGroup);
  const coveredMass =
    coveredMasses.length === 0 ? undefined : coveredMasses.reduce((a, b) => a + b, 0) / coveredMasses.length;
  return { logprobs, coveredMass };
}

/**
 * The prompts scoreInGroups sends for `rendered`, for the token budget: the same groups and runoffs, each runoff
 * taken with the longest option of every group as its leader (the longest those prompts can be).
 */
export function plannedGroups(rendered: RenderedQuestion, groupSize: number): OptionGroup[] {
  if (groupSize < 2) throw new Error('groupSize must be at least 2');
  if (rendered.options.length === 1) return [];
  if (rendered.options.length <= groupSize)
    return [
      renderOptionGroup(
        rendered,
        rendered.options.map((_, i) => i),
      ),
    ];
  const lengths = rendered.options.map((_, i) => optionText(rendered.question, i).length);
  const groups: OptionGroup[] = [];
  /** Records the prompts of a subset; returns its (worst-case) leader. */
  const plan = (optionIndexes: number[]): number => {
    if (optionIndexes.length <= groupSize) groups.push(renderOptionGroup(rendered, optionIndexes));
    else plan(balancedGroups(optionIndexes, groupSize).map(plan));
    return optionIndexes[argmax(optionIndexes.map((i) => lengths[i]))];
  };
  plan(rendered.options.map((_, i) => i));
  return groups;
}
