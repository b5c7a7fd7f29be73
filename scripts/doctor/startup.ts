// doctor at start-up (run.sh's summary): which models the settings expect, and the quick verdict (no speed probe)
// within a time bound. It never throws and never holds up the start: the stack is already serving when it runs, and a
// model that does not answer in time is said so, with the command for the full report.
import { withoutSecrets } from './report';
import { runDoctor } from './run';
import { DoctorSettingError, readDoctorSettings, secretsOf } from './settings';
import type { DoctorVerdict } from './verdict';

export const FULL_REPORT = 'npx tsx scripts/doctor.ts';

/** The models the settings name, in one line each: the chat model, the judge's, embeddings and voice (or off). */
export function expectedModels(settings: Record<string, string | undefined>): string[] {
  const optional = (prefix: string, fallback: string) => {
    const model = settings[`${prefix}_MODEL`]?.trim() || fallback;
    return settings[`${prefix}_BASE_URL`]?.trim() && model.toLowerCase() !== 'off' ? model : 'off';
  };
  return [
    `chat model ${settings.ASSISTANT_LLM_MODEL ?? '(not set)'} at ${settings.ASSISTANT_LLM_BASE_URL ?? '(not set)'} ` +
      "(it must call tools, and the agent's prompt must fit its window)",
    `judge model ${settings.JUDGE_OPENAI_MODEL ?? '(not set)'} at ${settings.JUDGE_OPENAI_BASE_URL ?? '(not set)'}`,
    `embeddings: ${optional('ASSISTANT_EMBEDDINGS', 'text-embedding-3-small')}; ` +
      `speech to text: ${optional('ASSISTANT_TRANSCRIPTION', 'whisper-1')}`,
  ];
}

/** The verdict in a few lines: the chat model's, then each feature that will not work and why. */
export function verdictLines(verdict: DoctorVerdict): string[] {
  const chat = verdict.chatModelFails
    ? `the chat model ${verdict.chatModel} FAILS: ${chatProblem(verdict)}`
    : `the chat model ${verdict.chatModel} works`;
  return [
    `doctor (quick): ${chat}`,
    ...verdict.missing.map((m) => `  will not work: ${m.feature} (${m.why})`),
    `  full report: ${FULL_REPORT}`,
  ];
}

function chatProblem(verdict: DoctorVerdict): string {
  if (!verdict.chat.reachable) return verdict.chat.problem ?? 'not reachable';
  if (verdict.window?.fits === false) return "the agent's prompt does not fit its window";
  return 'it answers tools in plain text';
}

export interface StartupOptions {
  /** The whole verdict's bound (default 45 s). */
  timeoutMs?: number;
}

/** The quick verdict's lines, or one line saying why there is none (a bad setting, no answer within the bound). */
export async function startupVerdict(env: NodeJS.ProcessEnv, options: StartupOptions = {}): Promise<string[]> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  let settings;
  try {
    settings = readDoctorSettings(env);
  } catch (error) {
    if (error instanceof DoctorSettingError) return [`doctor: not run: ${error.message}`];
    throw error;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
    timer.unref();
  });
  try {
    const verdict = await Promise.race([
      runDoctor(settings, { quick: true, modelTimeoutMs: Math.min(timeoutMs, 30_000) }),
      late,
    ]);
    if (!verdict)
      return [
        `doctor: no verdict within ${timeoutMs / 1000} s (a model may still be loading); ` +
          `the full report: ${FULL_REPORT}`,
      ];
    return verdictLines(verdict).map((line) => withoutSecrets(line, secretsOf(settings)));
  } catch (error) {
    return [`doctor: failed: ${withoutSecrets((error as Error).message, secretsOf(settings))}`];
  } finally {
    clearTimeout(timer);
  }
}
