// The question flow: every question in order, its answer from the operator (a TTY), or from an answers file and the
// environment (--non-interactive), else the current setting, else its default; each answer checked. On a TTY a bad
// answer is explained and the question asked again; without one every problem is collected and named.
import type { Answers, InstallerChecks, Question } from './questions';

/** Asks one question on a terminal; resolves to the typed line. */
export type Prompt = (text: string, options: { secret: boolean }) => Promise<string>;

export interface FlowOptions {
  questions: Question[];
  checks: InstallerChecks;
  /** The settings as they are (local.env), kept when no new answer is given. */
  current: Answers;
  /** Answers given ahead (answers file, environment). */
  given: Answers;
  /** A terminal to ask on; without one the flow is non-interactive. */
  prompt?: Prompt;
  /** Where explanations go on a terminal. */
  say?: (line: string) => void;
  /** How often a question is asked again on a terminal before giving up. */
  maxAttempts?: number;
}

export interface FlowResult {
  answers: Answers;
  /** Non-interactive: every problem, as "NAME: what is wrong". */
  problems: string[];
}

export async function runQuestions(options: FlowOptions): Promise<FlowResult> {
  const answers: Answers = {};
  const problems: string[] = [];
  const say = options.say ?? (() => undefined);
  for (const question of options.questions) {
    if (question.when && !question.when(answers)) {
      answers[question.key] = '';
      continue;
    }
    const preset = options.given[question.key] ?? options.current[question.key];
    const fallback = question.defaultValue?.(answers);
    if (!options.prompt) {
      const value = preset ?? fallback;
      if (value === undefined) {
        problems.push(`${question.key}: is required (${question.prompt(answers)})`);
        continue;
      }
      try {
        answers[question.key] = await question.check(value, answers, options.checks);
      } catch (error) {
        problems.push(`${question.key}: ${(error as Error).message}`);
      }
      continue;
    }
    const shown = preset ?? fallback;
    const hint = shown === undefined || shown === '' ? '' : question.secret ? ' [keep the current one]' : ` [${shown}]`;
    for (let attempt = 1; ; attempt++) {
      const typed = (
        await options.prompt(`${question.prompt(answers)}${hint}: `, { secret: Boolean(question.secret) })
      ).trim();
      const value = typed === '' ? shown : typed;
      if (value === undefined) {
        say('  an answer is needed here');
      } else {
        try {
          answers[question.key] = await question.check(value, answers, options.checks);
          break;
        } catch (error) {
          say(`  ${(error as Error).message}`);
        }
      }
      if (attempt >= (options.maxAttempts ?? 5)) {
        throw new Error(`${question.key}: no valid answer after ${attempt} tries`);
      }
    }
  }
  return { answers, problems };
}

/** Which settings an answer changed, for the summary (secrets by name only). */
export function changedSettings(current: Answers, next: Answers): string[] {
  return Object.keys(next).filter((key) => (current[key] ?? '') !== next[key]);
}
