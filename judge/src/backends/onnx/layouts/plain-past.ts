// plain-past layout (a Hugging Face export "with past"): the state's KV once, then each question on its own
// against that one KV.
import type { QuestionScores } from '../../../engine/backend';
import type { LayoutStrategy } from './strategy';
import { combine, finishLabels, firstTokenLogprobs, hasLongLabels, lastColumns, noLaterTokens } from './labels';
import { scoreOverState } from './state';

export const plainPast: LayoutStrategy = {
  score: (run, job, cache) =>
    scoreOverState(run, job, cache, async (state) => {
      const S = state.tokens;
      const scores: QuestionScores[] = [];
      for (const q of job.questions) {
        const needPresent = hasLongLabels(q);
        const ends = lastColumns([q.suffixIds]);
        const out = await run.run({
          rows: [q.suffixIds],
          startPositions: [S],
          pastMasks: [Array<number>(S).fill(1)],
          past: state.kv,
          wantPresent: needPresent,
          reads: ends,
        });
        const [first] = await firstTokenLogprobs(run, out, [q], ends);
        const total = S + q.suffixIds.length;
        const rest = needPresent
          ? await finishLabels(run, [q], out.present!, [0], [Array<number>(total).fill(1)], [total])
          : noLaterTokens([q]);
        scores.push(combine(first, rest[0]));
      }
      return scores;
    }),
};
