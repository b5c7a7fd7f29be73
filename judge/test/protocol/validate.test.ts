import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/protocol/errors';
import { jsonNestingDepth, validateRequest } from '../../src/protocol/validate';

const ok = { model: 'jev-latest', state: 'hello', questions: { q: { type: 'noul', instructions: 'Is it?' } } };

function errorOf(body: unknown): ApiError {
  try {
    validateRequest(body);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a validation error');
}

function locs(body: unknown): string[] {
  const error = errorOf(body);
  expect(error.status).toBe(422);
  expect(Array.isArray(error.detail)).toBe(true);
  const detail = error.detail as { loc: (string | number)[]; msg: string; type: string }[];
  for (const entry of detail) {
    expect(entry.msg.length).toBeGreaterThan(0);
    expect(entry.type.length).toBeGreaterThan(0);
  }
  return detail.map((e) => e.loc.join('.'));
}

describe('validateRequest: schema violations → 422 naming the field', () => {
  it.each([
    ['a non-object body', [1, 2], ['body']],
    ['a null body', null, ['body']],
    ['a missing model', { state: 's', questions: ok.questions }, ['body.model']],
    ['a numeric model', { ...ok, model: 3 }, ['body.model']],
    ['an empty model', { ...ok, model: '' }, ['body.model']],
    ['a missing state', { model: 'm', questions: ok.questions }, ['body.state']],
    ['a numeric state', { ...ok, state: 42 }, ['body.state']],
    ['a null state', { ...ok, state: null }, ['body.state']],
    ['missing questions', { model: 'm', state: 's' }, ['body.questions']],
    ['questions as a list', { ...ok, questions: [{ type: 'noul' }] }, ['body.questions']],
    ['no questions', { ...ok, questions: {} }, ['body.questions']],
    ['a question that is a string', { ...ok, questions: { urgency: 'high?' } }, ['body.questions.urgency']],
    ['an empty question name', { ...ok, questions: { '': { type: 'noul', instructions: 'x' } } }, ['body.questions.']],
    [
      'a question without type',
      { ...ok, questions: { urgency: { instructions: 'x' } } },
      ['body.questions.urgency.type'],
    ],
    [
      'an unknown type',
      { ...ok, questions: { urgency: { type: 'rank', instructions: 'x' } } },
      ['body.questions.urgency.type'],
    ],
    [
      'a choice without criteria',
      { ...ok, questions: { urgency: { type: 'choice' } } },
      ['body.questions.urgency.criteria'],
    ],
    [
      'a choice with list criteria',
      { ...ok, questions: { urgency: { type: 'choice', criteria: ['a', 'b'] } } },
      ['body.questions.urgency.criteria'],
    ],
    [
      'a score without criteria',
      { ...ok, questions: { urgency: { type: 'score' } } },
      ['body.questions.urgency.criteria'],
    ],
    [
      'a score with map criteria',
      { ...ok, questions: { urgency: { type: 'score', criteria: { low: 1 } } } },
      ['body.questions.urgency.criteria'],
    ],
    [
      'a noul with list criteria',
      { ...ok, questions: { urgency: { type: 'noul', criteria: ['y'] } } },
      ['body.questions.urgency.criteria'],
    ],
    [
      'a noul with an unknown criteria key',
      { ...ok, questions: { urgency: { type: 'noul', criteria: { True: 'y' } } } },
      ['body.questions.urgency.criteria.True'],
    ],
  ])('%s', (_name, body, expected) => {
    expect(locs(body)).toEqual(expected);
  });

  it('reports every broken field at once', () => {
    expect(locs({ model: 1, state: true, questions: { a: { type: 'x' }, b: { type: 'choice' } } })).toEqual([
      'body.model',
      'body.state',
      'body.questions.a.type',
      'body.questions.b.criteria',
    ]);
  });
});

describe('validateRequest: limits → 400 with a sentence naming the question', () => {
  it.each([
    ['an empty choice', { type: 'choice', criteria: {} }, /no options/],
    [
      '256 options',
      { type: 'choice', criteria: Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`o${i}`, null])) },
      /256 options/,
    ],
    ['a 1-level score', { type: 'score', criteria: ['only'] }, /1 levels/],
    ['an 11-level score', { type: 'score', criteria: Array.from({ length: 11 }, (_, i) => `l${i}`) }, /11 levels/],
    ['a noul with nothing', { type: 'noul' }, /neither instructions nor criteria/],
    ['a noul with blank instructions', { type: 'noul', instructions: '  ' }, /neither instructions nor criteria/],
  ])('%s', (_name, question, message) => {
    const error = errorOf({ ...ok, questions: { 'my question': question } });
    expect(error.status).toBe(400);
    expect(typeof error.detail).toBe('string');
    expect(error.detail).toMatch(message);
    expect(error.detail).toContain('"my question"');
  });

  it('too many questions', () => {
    const questions = Object.fromEntries(
      Array.from({ length: 3 }, (_, i) => [`q${i}`, { type: 'noul', instructions: 'x' }]),
    );
    expect(() =>
      validateRequest(
        { ...ok, questions },
        { maxQuestions: 2, maxChoiceOptions: 255, minScoreLevels: 2, maxScoreLevels: 10 },
      ),
    ).toThrow(/3 questions; at most 2/);
  });
});

describe('validateRequest: valid bodies', () => {
  it('accepts every question type, JSON instructions and states, and ignores unknown fields', () => {
    const request = validateRequest({
      model: 'jev-latest',
      state: { ticket: [1, 2, { z: null }] },
      extra: 'ignored',
      questions: {
        'Naïve name ✓': { type: 'noul', criteria: { true: 'yes', false: { why: 'no' } }, unknown: 1 },
        c: { type: 'choice', instructions: ['pick'], criteria: { a: null, b: { d: 1 } } },
        s: { type: 'score', instructions: { k: 'v' }, criteria: ['low', { mid: true }, 3] },
        one: { type: 'choice', criteria: { only: null } },
      },
    });
    expect(Object.keys(request.questions)).toEqual(['Naïve name ✓', 'c', 's', 'one']);
    expect(request).not.toHaveProperty('extra');
  });
});

describe('jsonNestingDepth', () => {
  it('counts brackets outside strings only', () => {
    expect(jsonNestingDepth('{"a":[1,{"b":"[[[[{{{"}]}')).toBe(3);
    expect(jsonNestingDepth('"\\"[[["')).toBe(0);
    expect(jsonNestingDepth('['.repeat(100000))).toBe(100000);
  });
});
