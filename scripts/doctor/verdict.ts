// doctor's verdict: every check's result, the assistant features this setup leaves out and why, and whether the chat
// model fails (unreachable, the agent's prompt does not fit, or no tool calling), which makes doctor's exit status 1.
import type { ChatCheck } from './chat';
import type { OptionalCheck } from './embeddings';
import type { JudgeCheck } from './judge';
import type { RecallCheck } from './recall';
import type { SpeedCheck } from './speed';
import type { WindowCheck } from './window';

export interface DoctorVerdict {
  chatModel: string;
  chat: ChatCheck;
  /** null when the chat model was not reached. */
  window: WindowCheck | null;
  speed: SpeedCheck;
  judge: JudgeCheck;
  embeddings: OptionalCheck;
  transcription: OptionalCheck;
  /** Which path recall by meaning takes on the assistant's database (pgvector, the cosine scan, words only). */
  recall: RecallCheck;
  /** Features that will not work, each with why. */
  missing: Array<{ feature: string; why: string }>;
  chatModelFails: boolean;
}

type Checks = Omit<DoctorVerdict, 'missing' | 'chatModelFails'>;

export function missingFeatures(checks: Checks): DoctorVerdict['missing'] {
  const missing: DoctorVerdict['missing'] = [];
  const add = (feature: string, why: string) => missing.push({ feature, why });
  if (!checks.chat.reachable)
    add('the assistant itself (every reply)', `the chat model is not usable: ${checks.chat.problem}`);
  else if (checks.window?.fits === false)
    add('the assistant itself (every reply)', "the agent's prompt does not fit the model's window");
  if (checks.chat.toolCalling === 'plain_text')
    add(
      'the agent using its tools (memories, tasks, reminders, the web, experts)',
      'the model answers in plain text instead of calling tools',
    );
  if (!checks.judge.reachable) {
    const why = `the judge is not reachable: ${checks.judge.problem}`;
    for (const feature of ['notify_when checks', 'the Analyst expert', 'the Judge node']) add(feature, why);
  }
  if (checks.embeddings.configured && !checks.embeddings.works)
    add('recall by meaning', `embeddings fail (${checks.embeddings.detail}); recall falls back to words`);
  if (!checks.embeddings.configured)
    add('recall by meaning', 'no embeddings are configured; recall falls back to words');
  if (!checks.transcription.works)
    add(
      'voice notes',
      checks.transcription.configured
        ? `transcription fails (${checks.transcription.detail})`
        : 'no transcription is configured',
    );
  return missing;
}

export function verdictOf(checks: Checks): DoctorVerdict {
  const chatModelFails = !checks.chat.reachable || checks.window?.fits === false || checks.chat.toolCalling !== 'works';
  return { ...checks, missing: missingFeatures(checks), chatModelFails };
}
