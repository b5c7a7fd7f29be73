// shared-prefix layout (prefix_key_values.* inputs, made by `convert`): the state's KV once, then every question
// in ONE batch that reads that single KV (broadcast inside attention, never copied per row).
import type { LayoutStrategy } from './strategy';
import { combine, finishLabels, firstTokenLogprobs, hasLongLabels, noLaterTokens } from './labels';
import { scoreOverState } from './state';

export const sharedPrefix: LayoutStrategy = {
  score: (run, job, cache) =>
    scoreOverState(run, job, cache, async (state) => {
      const { questions } = job;
      const S = state.tokens;
      const needPresent = questions.some(hasLongLabels);
      const rows = questions.map((q) => q.suffixIds);
      const out = await run.run({
        rows,
        startPositions: rows.map(() => S),
        pastMasks: rows.map(() => []),
        prefix: state.kv,
        wantPresent: needPresent,
        keepLast: 1,
      });
      const first = await firstTokenLogprobs(run, out, questions);
      const ownMasks = rows.map((r) => Array.from({ length: out.width }, (_, i) => (i < out.width - r.length ? 0 : 1)));
      const rest = needPresent
        ? await finishLabels(
            run,
            questions,
            out.present!,
            ownMasks,
            rows.map((r) => S + r.length),
            state.kv,
          )
        : noLaterTokens(questions);
      return questions.map((_, r) => combine(first[r], rest[r]));
    }),
};
