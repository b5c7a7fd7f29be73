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
 * Log-probability of every multi-token label's tokens after its first: each (question, label) row continues from
 * its question's own past (row `pastRows[q]` of `questionPast`, seen through `questionMasks[q]`, which hides
 * anything else packed in that row) and the shared prefix, where the layout has one. The rows run in one batch,
 * left-padded to the longest; with fused attention (GraphInfo.fusedAttention) never padded: see unpaddedGroups.
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
  const labelOf = (j: { question: number; label: number }) => questions[j.question].labelIds[j.label];
  const groups = run.model.graph.fusedAttention
    ? unpaddedGroups(jobs.map((j) => labelOf(j).length - 1))
    : [jobs.map((_, i) => i)];
  for (const group of groups) {
    const batch = group.map((i) => jobs[i]);
    const rows = batch.map((j) => labelOf(j).slice(0, -1));
    const width = Math.max(...rows.map((r) => r.length));
    // Row r's label token t (t ≥ 1) is read after its token t-1, at column padding + t - 1.
    const picks: (ColumnPick & { job: number })[] = [];
    batch.forEach((j, r) => {
      const label = labelOf(j);
      const padding = width - (label.length - 1);
      for (let t = 1; t < label.length; t++)
        picks.push({ job: group[r], row: r, column: padding + t - 1, tokenIds: [label[t]] });
    });
    const out = await run.run({
      rows,
      startPositions: batch.map((j) => nextPositions[j.question]),
      pastMasks: batch.map((j) => questionMasks[j.question]),
      past: gatherKvRows(
        questionPast,
        batch.map((j) => pastRows[j.question]),
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
  }
  return result;
}

/**
 * Batches of label rows (indices into `lengths`, the rows' token counts) that a fused attention op computes right:
 * ONNX Runtime's GroupQueryAttention takes no mask, only each row's key count (seqlens_k + 1, from the mask's sum)
 * and the mask's width, and assumes each row's real keys come first with its new tokens right after them, so a
 * left-padded row reads the wrong keys; and it refuses several rows of more than one new token over a past
 * ("batch_size must be 1 when sequence_length > 1 and past context is given"). So rows of one token run together
 * (no padding), and longer rows one by one.
 */
export function unpaddedGroups(lengths: readonly number[]): number[][] {
  const single = lengths.flatMap((length, i) => (length === 1 ? [i] : []));
  const longer = lengths.flatMap((length, i) => (length > 1 ? [[i]] : []));
  return single.length ? [single, ...longer] : longer;
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
