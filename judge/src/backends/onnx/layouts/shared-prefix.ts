// shared-prefix layout (prefix_key_values.* inputs, made by `convert`): the state's KV once, then every question
// in ONE batch that reads that single KV (broadcast inside attention, never copied per row). Where the graph allows,
// short questions are packed several to a row (packing.ts), so mixed lengths pad little.
import type { LayoutStrategy } from './strategy';
import { combine, finishLabels, firstTokenLogprobs, hasLongLabels, noLaterTokens } from './labels';
import { batchQuestions } from './packing';
import { scoreOverState } from './state';

export const sharedPrefix: LayoutStrategy = {
  score: (run, job, cache) =>
    scoreOverState(run, job, cache, async (state) => {
      const { questions } = job;
      const S = state.tokens;
      const needPresent = questions.some(hasLongLabels);
      const batch = batchQuestions(
        questions.map((q) => q.suffixIds),
        run.model.graph.packing,
      );
      const ends = batch.places.map((p) => ({ row: p.row, column: p.end }));
      const out = await run.run({
        rows: batch.rows,
        packed: batch.packed,
        startPositions: batch.rows.map(() => S),
        pastMasks: batch.rows.map(() => []),
        prefix: state.kv,
        wantPresent: needPresent,
        reads: ends,
      });
      const first = await firstTokenLogprobs(run, out, questions, ends);
      // Each question's own past: its columns of its row, nothing else packed there and no padding.
      const ownMasks = batch.places.map((p) =>
        Array.from({ length: batch.width }, (_, c) => (c >= p.start && c <= p.end ? 1 : 0)),
      );
      const rest = needPresent
        ? await finishLabels(
            run,
            questions,
            out.present!,
            batch.places.map((p) => p.row),
            ownMasks,
            questions.map((q) => S + q.suffixIds.length),
            state.kv,
          )
        : noLaterTokens(questions);
      return questions.map((_, r) => combine(first[r], rest[r]));
    }),
};
