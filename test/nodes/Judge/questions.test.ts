import { describe, expect, it } from 'vitest';

import { buildQuestions, QuestionParameterError } from '../../../nodes/Judge/v1/helpers/questions';

const expectFieldError = (run: () => unknown, field: string) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(QuestionParameterError);
    expect((error as QuestionParameterError).field).toBe(field);
    expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
    return;
  }
  throw new Error(`expected an error on ${field}`);
};

describe('buildQuestions', () => {
  it('maps the three question types to System One questions, keeping names and option order', () => {
    const questions = buildQuestions([
      { name: 'urgent', type: 'noul', instructions: 'Is it urgent?', trueCriterion: 'needs an answer today' },
      {
        name: 'Topic ü',
        type: 'choice',
        instructions: 'What is it about?',
        options: {
          option: [
            { label: 'billing', description: 'money' },
            { label: 'bug', description: '' },
          ],
        },
      },
      { name: 'tone', type: 'score', levels: { level: [{ description: 'calm' }, { description: { angry: true } }] } },
    ]);
    expect(questions).toEqual({
      urgent: { type: 'noul', instructions: 'Is it urgent?', criteria: { true: 'needs an answer today' } },
      'Topic ü': { type: 'choice', instructions: 'What is it about?', criteria: { billing: 'money', bug: null } },
      tone: { type: 'score', criteria: ['calm', { angry: true }] },
    });
    expect(Object.keys(questions['Topic ü'].criteria as object)).toEqual(['billing', 'bug']);
  });

  it('names the field of every bad parameter', () => {
    expectFieldError(() => buildQuestions([]), 'Questions');
    expectFieldError(() => buildQuestions(undefined), 'Questions');
    expectFieldError(() => buildQuestions([{ name: ' ', type: 'noul', instructions: 'x' }]), 'Questions[1].Name');
    expectFieldError(
      () =>
        buildQuestions([
          { name: 'a', type: 'noul', instructions: 'x' },
          { name: 'a', type: 'noul', instructions: 'y' },
        ]),
      'Questions[2].Name',
    );
    expectFieldError(() => buildQuestions([{ name: 'a', type: 'maybe' }]), 'Questions[1] ("a").Type');
    expectFieldError(() => buildQuestions([{ name: 'a', type: 'noul' }]), 'Questions[1] ("a").Instructions');
    expectFieldError(() => buildQuestions([{ name: 'a', type: 'choice' }]), 'Questions[1] ("a").Options');
    expectFieldError(
      () => buildQuestions([{ name: 'a', type: 'choice', options: { option: [{ label: 'x' }, { label: 'x' }] } }]),
      'Questions[1] ("a").Options[2].Label',
    );
    expectFieldError(
      () => buildQuestions([{ name: 'a', type: 'choice', options: { option: [{ label: '' }] } }]),
      'Questions[1] ("a").Options[1].Label',
    );
    const tooMany = Array.from({ length: 256 }, (_, index) => ({ label: `o${index}` }));
    expectFieldError(
      () => buildQuestions([{ name: 'a', type: 'choice', options: { option: tooMany } }]),
      'Questions[1] ("a").Options',
    );
    expectFieldError(
      () => buildQuestions([{ name: 'a', type: 'score', levels: { level: [{ description: 'only' }] } }]),
      'Questions[1] ("a").Levels',
    );
    const eleven = Array.from({ length: 11 }, (_, index) => ({ description: `l${index}` }));
    expectFieldError(
      () => buildQuestions([{ name: 'a', type: 'score', levels: { level: eleven } }]),
      'Questions[1] ("a").Levels',
    );
    expectFieldError(
      () =>
        buildQuestions([
          { name: 'a', type: 'score', levels: { level: [{ description: 'low' }, { description: '' }] } },
        ]),
      'Questions[1] ("a").Levels[2].Description',
    );
  });

  it('accepts a one-option choice and a noul with only a criterion', () => {
    expect(buildQuestions([{ name: 'c', type: 'choice', options: { option: [{ label: 'only' }] } }])).toEqual({
      c: { type: 'choice', criteria: { only: null } },
    });
    expect(buildQuestions([{ name: 'n', type: 'noul', falseCriterion: 'spam' }])).toEqual({
      n: { type: 'noul', criteria: { false: 'spam' } },
    });
  });
});
