// no-past layout (no KV inputs): one full pass over state + suffix per question, and one more per multi-token
// label for its later tokens.
import type { QuestionScores } from '../../../engine/backend';
import type { LayoutStrategy } from './strategy';
import { combine, firstTokenLogprobs, lastColumns } from './labels';

export const noPast: LayoutStrategy = {
  async score(run, job) {
    const scores: QuestionScores[] = [];
    for (const q of job.questions) {
      const ids = [...job.stateIds, ...q.suffixIds];
      const ends = lastColumns([ids]);
      const out = await run.run({ rows: [ids], startPositions: [0], pastMasks: [[]], wantPresent: false, reads: ends });
      const [first] = await firstTokenLogprobs(run, out, [q], ends);
      const rest = q.labelIds.map(() => 0);
      for (const [li, label] of q.labelIds.entries()) {
        if (label.length === 1) continue;
        const full = [...ids, ...label.slice(0, -1)];
        const picks = label.slice(1).map((token, i) => ({ row: 0, column: ids.length + i, tokenIds: [token] }));
        const cont = await run.run({
          rows: [full],
          startPositions: [0],
          pastMasks: [[]],
          wantPresent: false,
          reads: picks,
        });
        for (const [lp] of await run.logprobsAt(cont, picks)) rest[li] += lp;
      }
      scores.push(combine(first, rest));
    }
    return scores;
  },
};
