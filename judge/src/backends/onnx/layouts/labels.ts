// Label scores shared by the layouts: each label's first token read after its question's last token, the later
// tokens of multi-token labels finished from each question's own past, and the two added up.
import type { QuestionScores } from '../../../engine/backend';
import type { ColumnPick, LogitsRead, ModelRun, RunOutput } from '../feeds-and-run';
import type { PreparedQuestion } from '../job';
import { gatherKvRows, type KvTensors } from '../tensors';

/** The last column of each row (rows left-padded to the longest): where one question per row ends. */
export function lastColumns(rows: (readonly number[])[]): LogitsRead[] {
  const width = Math.max(...rows.map((r) => r.length));
  return rows.map((_, row) => ({ row, column: width - 1 }));
}

/** Per question (in order), the first token of each label, read where the question ends (`ends[i]`). */
export function firstTokenLogprobs(
  run: ModelRun,
  out: RunOutput,
  questions: PreparedQuestion[],
  ends: LogitsRead[],
): Promise<number[][]> {
  return run.logprobsAt(
    out,
    questions.map((q, i) => ({ ...ends[i], tokenIds: q.labelIds.map((l) => l[0]) })),
  );
}

export const hasLongLabels = (q: PreparedQuestion): boolean => q.labelIds.some((l) => l.length > 1);

/** Per question, per label: 0 (no later tokens to add). */
export const noLaterTokens = (questions: PreparedQuestion[]): number[][] =>
  questions.map((q) => q.labelIds.map(() => 0));

/**
 * Log-probability of every multi-token label's tokens after its first, in one batch: each (question, label)
 * row continues from its question's own past (row `pastRows[q]` of `questionPast`, seen through `questionMasks[q]`,
 * which hides anything else packed in that row) and the shared prefix, where the layout has one.
 * Returns per question, per label, the sum over tokens 2..n (0 for single-token labels).
 */
export async function finishLabels(
  run: ModelRun,
  questions: PreparedQuestion[],
  questionPast: KvTensors,
  pastRows: number[],
  questionMasks: number[][],
  nextPositions: number[],
  prefix?: KvTensors,
): Promise<number[][]> {
  const result = noLaterTokens(questions);
  const jobs: { question: number; label: number }[] = [];
  questions.forEach((q, qi) => q.labelIds.forEach((l, li) => l.length > 1 && jobs.push({ question: qi, label: li })));
  if (jobs.length === 0) return result;
  const rows = jobs.map((j) => questions[j.question].labelIds[j.label].slice(0, -1));
  const width = Math.max(...rows.map((r) => r.length));
  // Row r's label token t (t ≥ 1) is read after its token t-1, at column padding + t - 1.
  const picks: (ColumnPick & { job: number })[] = [];
  jobs.forEach((j, r) => {
    const label = questions[j.question].labelIds[j.label];
    const padding = width - (label.length - 1);
    for (let t = 1; t < label.length; t++)
      picks.push({ job: r, row: r, column: padding + t - 1, tokenIds: [label[t]] });
  });
  const out = await run.run({
    rows,
    startPositions: jobs.map((j) => nextPositions[j.question]),
    pastMasks: jobs.map((j) => questionMasks[j.question]),
    past: gatherKvRows(
      questionPast,
      jobs.map((j) => pastRows[j.question]),
    ),
    prefix,
    wantPresent: false,
    reads: picks,
  });
  const logprobs = await run.logprobsAt(out, picks);
  picks.forEach((p, i) => {
    const j = jobs[p.job];
    result[j.question][j.label] += logprobs[i][0];
  });
  return result;
}

/** Adds each label's later tokens to its first; the covered mass is the labels' total probability. */
export function combine(first: number[], rest: number[]): QuestionScores {
  const logprobs = first.map((lp, i) => lp + rest[i]);
  const coveredMass = Math.min(
    1,
    logprobs.reduce((sum, lp) => sum + Math.exp(lp), 0),
  );
  return { logprobs, coveredMass };
}
