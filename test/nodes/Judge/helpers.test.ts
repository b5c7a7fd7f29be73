import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JSON_DEPTH, tooDeepMessage } from 'systemone-judge/core';

import { checkBearerKey, MISSING_KEY, NOT_BEARER, WRONG_KEY } from '../../../nodes/Judge/v1/helpers/inboundKey';
import { configureOutputs } from '../../../nodes/Judge/v1/helpers/outputs';
import { readState, StateParameterError } from '../../../nodes/Judge/v1/helpers/state';
import { describeErrorBody, errorEnvelope, refusalFields } from '../../../nodes/Judge/v1/helpers/errorBody';
import { nestsDeeperThan } from '../../../nodes/Judge/v1/helpers/nesting';
import { answerHeaders, requestIdOf } from '../../../nodes/Judge/v1/helpers/responseHeaders';

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

  it("keeps the judge's envelope for a webhook reply and wraps anything else in the server's shape", () => {
    const envelope = { detail: { error_type: 'invalid_model', message: 'Unknown model "x".' } };
    expect(errorEnvelope(envelope, 400)).toBe(envelope);
    const fields = { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }], error_type: 'x' };
    expect(errorEnvelope(fields, 422)).toBe(fields);
    const wrapped = (status: number) => ({
      detail: {
        error_type: 'backend_error',
        message: `The judge answered HTTP ${status} without a System One error body.`,
      },
    });
    expect(errorEnvelope('<html>bad gateway from 10.0.0.7</html>', 502)).toEqual(wrapped(502));
    expect(errorEnvelope(['x'], 500)).toEqual(wrapped(500));
    expect(errorEnvelope(undefined, 404)).toEqual(wrapped(404));
  });

  it('gives a refused item the HTTP status and, when the body has one, its error type', () => {
    const refusal = { detail: { error_type: 'budget_exceeded', message: 'The daily budget is spent.' } };
    expect(refusalFields(402, refusal)).toEqual({ httpCode: 402, errorType: 'budget_exceeded' });
    expect(refusalFields(422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] })).toEqual({
      httpCode: 422,
    });
    expect(refusalFields(502, '<html>bad gateway</html>')).toEqual({ httpCode: 502 });
    expect(refusalFields(500, null)).toEqual({ httpCode: 500 });
  });
});

describe('nestsDeeperThan', () => {
  const nest = (levels: number, inner: unknown = 1) => {
    let value = inner;
    for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
    return value;
  };

  it('counts objects and arrays as the server counts brackets, and stops at the limit', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan(nest(64), DEFAULT_MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nest(65), DEFAULT_MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan({ wide: Array.from({ length: 1000 }, () => ({ x: [1] })), deep: nest(70) }, 64)).toBe(true);
    expect(nestsDeeperThan(nest(200_000), DEFAULT_MAX_JSON_DEPTH)).toBe(true);
    expect(tooDeepMessage(64)).toBe('The body nests JSON deeper than 64 levels.');
  });
});

describe('requestIdOf and answerHeaders', () => {
  it("keeps a caller's id the judge server would keep, else makes one", () => {
    expect(requestIdOf({ 'x-request-id': 'abc-1.2:3_x' })).toBe('abc-1.2:3_x');
    for (const odd of ['', 'a b', 'x'.repeat(129), ['a'], 42]) {
      expect(requestIdOf({ 'x-request-id': odd })).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
    expect(requestIdOf(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("takes the judge's headers, else the request's id and the node's time", () => {
    const judge = { 'x-request-id': 'j-1', 'x-typesafe-request-id': 'j-1', 'server-timing': 'total;dur=3.00' };
    expect(answerHeaders(judge, 'mine', 7)).toEqual(judge);
    expect(answerHeaders({ 'x-typesafe-request-id': 'sdk-1' }, 'mine', 7)).toEqual({
      'x-request-id': 'sdk-1',
      'x-typesafe-request-id': 'sdk-1',
      'server-timing': 'total;dur=7.00',
    });
    expect(answerHeaders(undefined, 'mine', 1.234)).toEqual({
      'x-request-id': 'mine',
      'x-typesafe-request-id': 'mine',
      'server-timing': 'total;dur=1.23',
    });
  });
});
