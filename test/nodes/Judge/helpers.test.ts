import { describe, expect, it } from 'vitest';

import { checkBearerKey, MISSING_KEY, NOT_BEARER, WRONG_KEY } from '../../../nodes/Judge/v1/helpers/inboundKey';
import { configureOutputs } from '../../../nodes/Judge/v1/helpers/outputs';
import { readState, StateParameterError } from '../../../nodes/Judge/v1/helpers/state';
import { describeErrorBody, errorEnvelope } from '../../../nodes/Judge/v1/helpers/errorBody';

describe('checkBearerKey', () => {
  it('accepts the right key and answers like the judge server otherwise', () => {
    expect(checkBearerKey('Bearer s3cret', 's3cret')).toBeNull();
    expect(checkBearerKey('bearer   s3cret ', 's3cret')).toBeNull();
    expect(checkBearerKey(['Bearer s3cret'], 's3cret')).toBeNull();
    expect(checkBearerKey(undefined, 's3cret')).toEqual(MISSING_KEY);
    expect(checkBearerKey('', 's3cret')).toEqual(MISSING_KEY);
    expect(checkBearerKey('   ', 's3cret')).toEqual(MISSING_KEY);
    expect(checkBearerKey('Basic czNjcmV0', 's3cret')).toEqual(NOT_BEARER);
    expect(checkBearerKey('Bearer ', 's3cret')).toEqual(NOT_BEARER);
    expect(checkBearerKey('Bearer wrong', 's3cret')).toEqual(WRONG_KEY);
    expect(checkBearerKey('Bearer s3cret-and-more', 's3cret')).toEqual(WRONG_KEY);
    // The judge server's own answers (judge/src/server/http.ts), byte for byte.
    expect(MISSING_KEY).toEqual({
      statusCode: 403,
      body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
    });
    expect(WRONG_KEY).toEqual({
      statusCode: 401,
      body: { detail: { error_type: 'authentication_error', message: 'Invalid API key.' } },
    });
  });
});

describe('configureOutputs', () => {
  it('gives one output, Success/Error, True/False or one per option of the routed choice', () => {
    expect(configureOutputs({})).toEqual([{ type: 'main', displayName: '' }]);
    expect(configureOutputs({ mode: 'passThrough', routeBy: 'noul' }).map((o) => o.displayName)).toEqual([
      'Success',
      'Error',
    ]);
    expect(configureOutputs({ mode: 'judge', routeBy: 'noul' }).map((o) => o.displayName)).toEqual(['True', 'False']);
    const questions = {
      question: [
        { name: 'other', type: 'choice', options: { option: [{ label: 'x' }] } },
        {
          name: 'topic',
          type: 'choice',
          options: { option: [{ label: 'billing' }, { label: 'bug' }, { label: 'other' }] },
        },
      ],
    };
    expect(
      configureOutputs({ routeBy: 'choice', routeQuestion: 'topic', questions }).map((o) => o.displayName),
    ).toEqual(['billing', 'bug', 'other']);
    expect(configureOutputs({ routeBy: 'choice', routeQuestion: 'missing', questions })).toHaveLength(1);
  });

  it('is self-contained, so n8n can evaluate its source text', () => {
    const evaluate = new Function('$parameter', `return (${configureOutputs.toString()})($parameter);`);
    expect(evaluate({ mode: 'passThrough' })).toEqual(configureOutputs({ mode: 'passThrough' }));
  });
});

describe('readState', () => {
  it('keeps text as text and objects as JSON', () => {
    expect(readState('Hello {"a":1}', 'text')).toBe('Hello {"a":1}');
    expect(readState({ a: 1 }, 'text')).toEqual({ a: 1 });
    expect(readState([1, 'two'], 'json')).toEqual([1, 'two']);
    expect(readState('{"a":[1,2]}', 'json')).toEqual({ a: [1, 2] });
    expect(readState(42, 'text')).toBe('42');
  });

  it('rejects empty state and bad JSON, naming the field', () => {
    for (const [value, format] of [
      ['', 'text'],
      ['   ', 'json'],
      [undefined, 'text'],
      ['{oops', 'json'],
      ['42', 'json'],
    ] as const) {
      expect(() => readState(value, format)).toThrow(StateParameterError);
      expect(() => readState(value, format)).toThrow(/^State: /);
    }
  });
});

describe('describeErrorBody', () => {
  it('names the fields of a 422 and keeps plain details', () => {
    expect(
      describeErrorBody({
        detail: [{ loc: ['body', 'questions', 'urgency', 'criteria'], msg: 'Field required', type: 'missing' }],
      }),
    ).toBe('body.questions.urgency.criteria: Field required');
    expect(describeErrorBody({ detail: 'Unknown model' })).toBe('Unknown model');
    expect(describeErrorBody({ detail: { error_type: 'invalid_model', message: 'Unknown model "x".' } })).toBe(
      'Unknown model "x".',
    );
    expect(describeErrorBody('<html>bad gateway</html>')).toBe('<html>bad gateway</html>');
  });

  it("keeps the judge's envelope for a webhook reply and wraps anything else", () => {
    expect(errorEnvelope({ detail: 'Unknown model', error_type: 'invalid_request' })).toEqual({
      detail: 'Unknown model',
      error_type: 'invalid_request',
    });
    expect(errorEnvelope('<html>bad gateway</html>')).toEqual({ detail: '<html>bad gateway</html>' });
    expect(errorEnvelope(['x'])).toEqual({ detail: 'The judge answered with an error.' });
  });
});
