// Turns the node's "Questions" collection into System One questions, naming the exact field on bad input.
import { DEFAULT_VALIDATION_LIMITS, FieldError, type JsonValue, type Question } from 'systemone-judge/core';

export interface OptionParameter {
  label?: string;
  description?: JsonValue;
}

export interface LevelParameter {
  description?: JsonValue;
}

export interface QuestionParameter {
  name?: string;
  type?: string;
  instructions?: JsonValue;
  trueCriterion?: JsonValue;
  falseCriterion?: JsonValue;
  options?: { option?: OptionParameter[] };
  levels?: { level?: LevelParameter[] };
}

/** The judge's default limits on a question. */
const {
  maxChoiceOptions: MAX_CHOICE_OPTIONS,
  minScoreLevels: MIN_SCORE_LEVELS,
  maxScoreLevels: MAX_SCORE_LEVELS,
} = DEFAULT_VALIDATION_LIMITS;

/** A bad question parameter; `field` is the path shown to the user, e.g. `Questions[2].Options`. */
export class QuestionParameterError extends FieldError {}

const isBlank = (value: JsonValue | undefined): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** Empty texts are left out rather than sent as "". */
const present = (value: JsonValue | undefined): JsonValue | undefined => (isBlank(value) ? undefined : value);

export function buildQuestions(parameters: QuestionParameter[] | undefined): Record<string, Question> {
  const list = parameters ?? [];
  if (list.length === 0) throw new QuestionParameterError('Questions', 'add at least one question');
  const questions: Record<string, Question> = {};
  list.forEach((parameter, index) => {
    const at = `Questions[${index + 1}]`;
    const name = parameter.name ?? '';
    if (name.trim() === '') throw new QuestionParameterError(`${at}.Name`, 'a question needs a name');
    if (Object.prototype.hasOwnProperty.call(questions, name)) {
      throw new QuestionParameterError(`${at}.Name`, `the name "${name}" is used by an earlier question`);
    }
    questions[name] = buildQuestion(parameter, `${at} ("${name}")`);
  });
  return questions;
}

function buildQuestion(parameter: QuestionParameter, at: string): Question {
  const instructions = present(parameter.instructions);
  switch (parameter.type) {
    case 'noul': {
      const whenTrue = present(parameter.trueCriterion);
      const whenFalse = present(parameter.falseCriterion);
      if (instructions === undefined && whenTrue === undefined && whenFalse === undefined) {
        throw new QuestionParameterError(`${at}.Instructions`, 'a yes/no question needs instructions or a criterion');
      }
      const criteria =
        whenTrue === undefined && whenFalse === undefined
          ? undefined
          : {
              ...(whenTrue === undefined ? {} : { true: whenTrue }),
              ...(whenFalse === undefined ? {} : { false: whenFalse }),
            };
      return {
        type: 'noul',
        ...(instructions === undefined ? {} : { instructions }),
        ...(criteria ? { criteria } : {}),
      };
    }
    case 'choice': {
      const options = parameter.options?.option ?? [];
      if (options.length === 0) throw new QuestionParameterError(`${at}.Options`, 'a choice needs at least one option');
      if (options.length > MAX_CHOICE_OPTIONS) {
        throw new QuestionParameterError(
          `${at}.Options`,
          `at most ${MAX_CHOICE_OPTIONS} options, got ${options.length}`,
        );
      }
      const criteria: Record<string, JsonValue | null> = {};
      options.forEach((option, index) => {
        const label = option.label ?? '';
        const field = `${at}.Options[${index + 1}].Label`;
        if (label === '') throw new QuestionParameterError(field, 'an option needs a label');
        if (Object.prototype.hasOwnProperty.call(criteria, label)) {
          throw new QuestionParameterError(field, `the label "${label}" is used by an earlier option`);
        }
        criteria[label] = present(option.description) ?? null;
      });
      return { type: 'choice', ...(instructions === undefined ? {} : { instructions }), criteria };
    }
    case 'score': {
      const levels = parameter.levels?.level ?? [];
      if (levels.length < MIN_SCORE_LEVELS || levels.length > MAX_SCORE_LEVELS) {
        throw new QuestionParameterError(
          `${at}.Levels`,
          `a score needs ${MIN_SCORE_LEVELS} to ${MAX_SCORE_LEVELS} levels, low to high; got ${levels.length}`,
        );
      }
      const criteria = levels.map((level, index) => {
        const description = present(level.description);
        if (description === undefined) {
          throw new QuestionParameterError(`${at}.Levels[${index + 1}].Description`, 'a level needs a description');
        }
        return description;
      });
      return { type: 'score', ...(instructions === undefined ? {} : { instructions }), criteria };
    }
    default:
      throw new QuestionParameterError(`${at}.Type`, `must be noul, choice or score, got "${String(parameter.type)}"`);
  }
}
