// forget_everything on the user's own yes, decided by code: the tool asks the user (an approval question naming
// what is forgotten), and only an answered question of this user, of that kind and text, answered yes, forgets.
// Anything else (no, no answer, the run out of time) forgets nothing and says so. The model cannot answer for them.
import type { Pool } from 'pg';
import { isApproval, requireApprovalQuestion } from '../pending/approvals';
import { requireUserId } from '../validate';
import { forgetEverything, type ForgetCounts } from './forget';

const FORGET_MARKER = 'Forget everything I keep about you';

/** What the user is asked before everything is forgotten. */
export const FORGET_QUESTION =
  `${FORGET_MARKER}: memories, the knowledge graph, tasks, reminders, recurring actions, checks and our ` +
  'conversations? This cannot be undone. Reply yes to forget it all; anything else keeps everything.';

export type ForgetOutcome =
  { forgotten: true; deleted: ForgetCounts; result: string } | { forgotten: false; result: string };

export async function forgetEverythingIfConfirmed(
  pool: Pool,
  userIdInput: unknown,
  input: { questionId: unknown; status?: unknown; answer: unknown },
): Promise<ForgetOutcome> {
  const userId = requireUserId(userIdInput);
  if (input.status !== undefined && input.status !== 'answered') {
    return { forgotten: false, result: 'Nothing was forgotten: the user did not answer in time.' };
  }
  await requireApprovalQuestion(pool, input.questionId, {
    marker: FORGET_MARKER,
    what: 'forgetting everything',
    askedTo: userId,
  });
  if (!isApproval(input.answer)) {
    return { forgotten: false, result: 'Nothing was forgotten: the user did not say yes. Everything is kept.' };
  }
  const deleted = await forgetEverything(pool, userId);
  return { forgotten: true, deleted, result: 'Everything the assistant kept about the user was forgotten.' };
}
