// Validation of POST /v1/systemone bodies.
// Schema violations → 422 with every broken field as {loc, msg, type}, loc starting with "body".
// Well-formed bodies that break a limit or rule → 400 with a plain sentence that names the question.
// Unknown fields are ignored (as Jev does); known fields are never silently defaulted.
import { setOwn } from '../util/own';
import { badRequest, schemaError } from './errors';
import { DEFAULT_VALIDATION_LIMITS, type ValidationLimits } from './limits';
import type { FieldIssue, JsonValue, Question, SystemOneRequest } from './types';

type Loc = (string | number)[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** Where a question's criteria are, for an error (built only then: most questions are fine). */
const criteriaLoc = (name: string): Loc => ['body', 'questions', name, 'criteria'];

function validateQuestion(name: string, raw: unknown, errors: FieldIssue[]): Question | undefined {
  if (name === '') {
    errors.push({
      loc: ['body', 'questions', name],
      msg: 'A question name must not be empty.',
      type: 'string_too_short',
    });
    return undefined;
  }
  if (!isPlainObject(raw)) {
    errors.push({
      loc: ['body', 'questions', name],
      msg: `Question must be an object, got ${kindOf(raw)}.`,
      type: 'dict_type',
    });
    return undefined;
  }
  const rawType = raw.type;
  if (rawType === undefined) {
    errors.push({
      loc: ['body', 'questions', name, 'type'],
      msg: 'Field required: one of "noul", "choice", "score".',
      type: 'missing',
    });
    return undefined;
  }
  if (rawType !== 'noul' && rawType !== 'choice' && rawType !== 'score') {
    errors.push({
      loc: ['body', 'questions', name, 'type'],
      msg: `Input should be "noul", "choice" or "score", got ${JSON.stringify(rawType)}.`,
      type: 'literal_error',
    });
    return undefined;
  }
  const type: Question['type'] = rawType;
  const instructions = raw.instructions as JsonValue | undefined;
  const criteria = raw.criteria;

  if (type === 'noul') {
    if (criteria === undefined || criteria === null) return { type, instructions };
    if (!isPlainObject(criteria)) {
      errors.push({
        loc: criteriaLoc(name),
        msg: `Noul criteria must be an object {"true": …, "false": …}, got ${kindOf(criteria)}.`,
        type: 'dict_type',
      });
      return undefined;
    }
    const extra = Object.keys(criteria).filter((key) => key !== 'true' && key !== 'false');
    if (extra.length > 0) {
      for (const key of extra) {
        errors.push({
          loc: [...criteriaLoc(name), key],
          msg: 'Noul criteria only take the keys "true" and "false".',
          type: 'extra_forbidden',
        });
      }
      return undefined;
    }
    return { type, instructions, criteria: criteria as { true?: JsonValue; false?: JsonValue } };
  }

  if (type === 'choice') {
    if (criteria === undefined) {
      errors.push({ loc: criteriaLoc(name), msg: 'Field required: a map from label to description.', type: 'missing' });
      return undefined;
    }
    if (!isPlainObject(criteria)) {
      errors.push({
        loc: criteriaLoc(name),
        msg: `Choice criteria must be an object mapping each label to a description or null, got ${kindOf(criteria)}.`,
        type: 'dict_type',
      });
      return undefined;
    }
    return { type, instructions, criteria: criteria as Record<string, JsonValue | null> };
  }

  if (criteria === undefined) {
    errors.push({ loc: criteriaLoc(name), msg: 'Field required: a list of levels, lowest first.', type: 'missing' });
    return undefined;
  }
  if (!Array.isArray(criteria)) {
    errors.push({
      loc: criteriaLoc(name),
      msg: `Score criteria must be a list of levels, lowest first, got ${kindOf(criteria)}.`,
      type: 'list_type',
    });
    return undefined;
  }
  return { type, instructions, criteria: criteria as JsonValue[] };
}

function hasContent(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim().length > 0;
  return true;
}

function checkLimits(name: string, question: Question, limits: ValidationLimits): void {
  const label = JSON.stringify(name);
  switch (question.type) {
    case 'noul': {
      const criteria = question.criteria;
      if (!hasContent(question.instructions) && !hasContent(criteria?.true) && !hasContent(criteria?.false)) {
        throw badRequest(`Question ${label} is a noul with neither instructions nor criteria; give at least one.`);
      }
      return;
    }
    case 'choice': {
      const count = Object.keys(question.criteria).length;
      if (count === 0) throw badRequest(`Question ${label} is a choice with no options; give at least one.`);
      if (count > limits.maxChoiceOptions) {
        throw badRequest(`Question ${label} has ${count} options; a choice allows at most ${limits.maxChoiceOptions}.`);
      }
      return;
    }
    case 'score': {
      const count = question.criteria.length;
      if (count < limits.minScoreLevels || count > limits.maxScoreLevels) {
        throw badRequest(
          `Question ${label} has ${count} levels; a score needs ${limits.minScoreLevels} to ${limits.maxScoreLevels}.`,
        );
      }
    }
  }
}

/** Validate a parsed JSON body; returns a normalised request or throws an ApiError (422 or 400). */
export function validateRequest(body: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): SystemOneRequest {
  const errors: FieldIssue[] = [];
  if (!isPlainObject(body)) {
    throw schemaError([
      { loc: ['body'], msg: `The body must be a JSON object, got ${kindOf(body)}.`, type: 'dict_type' },
    ]);
  }
  const { model, state, questions } = body;

  if (model === undefined) errors.push({ loc: ['body', 'model'], msg: 'Field required.', type: 'missing' });
  else if (typeof model !== 'string' || model.length === 0) {
    errors.push({
      loc: ['body', 'model'],
      msg: `Model must be a non-empty string, got ${kindOf(model)}.`,
      type: 'string_type',
    });
  }

  if (state === undefined) errors.push({ loc: ['body', 'state'], msg: 'Field required.', type: 'missing' });
  else if (typeof state !== 'string' && (typeof state !== 'object' || state === null)) {
    errors.push({
      loc: ['body', 'state'],
      msg: `State must be a string, an object or an array, got ${kindOf(state)}.`,
      type: 'state_type',
    });
  }

  const validated: Record<string, Question> = {};
  let names: string[] = [];
  if (questions === undefined) errors.push({ loc: ['body', 'questions'], msg: 'Field required.', type: 'missing' });
  else if (!isPlainObject(questions)) {
    errors.push({
      loc: ['body', 'questions'],
      msg: `Questions must be an object mapping names to questions, got ${kindOf(questions)}.`,
      type: 'dict_type',
    });
  } else {
    names = Object.keys(questions);
    if (names.length === 0) {
      errors.push({ loc: ['body', 'questions'], msg: 'Give at least one question.', type: 'too_short' });
    }
    for (const name of names) {
      const question = validateQuestion(name, questions[name], errors);
      if (question) setOwn(validated, name, question);
    }
  }

  if (errors.length > 0) throw schemaError(errors);

  // No errors: every name is a validated question, in the same order.
  const count = names.length;
  if (count > limits.maxQuestions) {
    throw badRequest(`The request has ${count} questions; at most ${limits.maxQuestions} are allowed.`);
  }
  for (const name of names) checkLimits(name, validated[name], limits);

  return { model: model as string, state: state as SystemOneRequest['state'], questions: validated };
}

/**
 * Deepest nesting of arrays/objects in a JSON text, scanned without parsing (and without recursion),
 * so hostile bodies are refused before anything recursive touches them.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Jump to the quote that closes this string: the next one after an even run of backslashes.
      let quote = text.indexOf('"', i + 1);
      for (;;) {
        if (quote === -1) return deepest;
        let backslashes = 0;
        while (quote - 1 - backslashes > i && text.charCodeAt(quote - 1 - backslashes) === 92 /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
        quote = text.indexOf('"', quote + 1);
      }
      i = quote;
    } else if (c === 91 || c === 123 /* [ { */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125 /* ] } */) depth--;
  }
  return deepest;
}
