// Third-party client conformance: the unmodified @typesafe-ai/sdk@0.6.0 pointed at our server by baseURL.
// The SDK does not check response shapes, so this test does.
import {
  AuthenticationError,
  BadRequestError,
  PermissionDeniedError,
  TypeSafeClient,
  UnprocessableEntityError,
  choice,
  noul,
  score,
} from '@typesafe-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';

const KEY = 'sdk-test-key-abcdef';
const PINNED = 'judge-openai-fake-2026-01-01';
let fake: FakeOpenAI;
let server: JudgeServer;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  server = await startJudgeServer({
    apiKeys: [KEY],
    backend: {
      kind: 'openai',
      baseUrl: fake.baseUrl,
      upstreamModel: 'fake-model',
      id: PINNED,
      description: 'test',
      releaseDate: '2026-01-01',
    },
    log: () => undefined,
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

const client = (apiKey = KEY) =>
  new TypeSafeClient({ apiKey, baseURL: server.url, retry: { maxRetries: 0 }, logLevel: 'off' });
/** The error a call rejects with (failing the test if it resolves). */
type SdkError = Error & {
  status: number;
  body: { detail: { loc: unknown[] }[] } & Record<string, unknown>;
  requestId?: string;
};
const rejection = (promise: PromiseLike<unknown>): Promise<SdkError> =>
  Promise.resolve(promise).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as SdkError,
  );
const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

describe('@typesafe-ai/sdk 0.6.0 against our server', () => {
  it('noul, choice and score through systemOne (default model jev-latest)', async () => {
    const { data, requestId } = await client()
      .systemOne({
        state: { ticket: 'My invoice is wrong and I want a refund.', plan: 'pro' },
        questions: {
          refund: noul('Does the customer ask for a refund?'),
          team: choice('Which team should handle it?', { billing: 'invoices and refunds', tech: null, sales: null }),
          anger: score('How upset is the customer?', ['calm', 'annoyed', 'furious']),
        },
      })
      .withResponse();
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.model).toBe(PINNED);
    expect(Object.keys(data.answers)).toEqual(['refund', 'team', 'anger']);

    const refund = data.answers.refund as { type: string; noul: number };
    expect(refund.type).toBe('noul');
    expect(refund.noul).toBeGreaterThanOrEqual(0);
    expect(refund.noul).toBeLessThanOrEqual(1);

    const team = data.answers.team as {
      type: string;
      choice: string;
      probabilities: Record<string, number>;
      confidence: number;
    };
    expect(team.type).toBe('choice');
    expect(Object.keys(team.probabilities)).toEqual(['billing', 'tech', 'sales']);
    expect(sum(team.probabilities)).toBeCloseTo(1, 9);
    const pMax = Math.max(...Object.values(team.probabilities));
    expect(team.probabilities[team.choice]).toBe(pMax);
    expect(team.confidence).toBeCloseTo((3 * pMax - 1) / 2, 12);

    const anger = data.answers.anger as {
      type: string;
      score: number;
      probabilities: Record<string, number>;
      legend: Record<string, unknown>;
      confidence: number;
    };
    expect(anger.type).toBe('score');
    expect(Object.keys(anger.probabilities)).toEqual(['0', '1', '2']);
    expect(anger.legend).toEqual({ '0': 'calm', '1': 'annoyed', '2': 'furious' });
    expect(anger.score).toBeCloseTo(anger.probabilities['1'] + 2 * anger.probabilities['2'], 12);
    expect(anger.confidence).toBeGreaterThanOrEqual(0);
    expect(anger.confidence).toBeLessThanOrEqual(1);

    expect(data.usage.output_tokens).toBe(0);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
  });

  it('models.list()', async () => {
    const models = await client().models.list();
    // Each entry says how the model is scored (an extra field; the fake returns logprobs).
    const scoring = { method: 'top_logprobs', calibrated: true };
    expect(models).toEqual([
      { name: PINNED, description: 'test', release_date: '2026-01-01', scoring },
      {
        name: 'judge-openai-fake-latest',
        description: `Alias of ${PINNED}: test`,
        release_date: '2026-01-01',
        scoring,
      },
      { name: 'jev-latest', description: `Alias of ${PINNED}: test`, release_date: '2026-01-01', scoring },
    ]);
  });

  it('a wrong key → AuthenticationError (401)', async () => {
    const error = await rejection(client('wrong-key').models.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.body).toEqual({ detail: { error_type: 'authentication_error', message: 'Invalid API key.' } });
    expect(error.message).toBe('401 Invalid API key.');
    expect(error.requestId).toBeTruthy();
  });

  it('no key → PermissionDeniedError (403)', async () => {
    // The SDK always sends its key, so strip it through a fetch wrapper, as a keyless caller would arrive.
    const keyless = new TypeSafeClient({
      apiKey: 'x',
      baseURL: server.url,
      retry: { maxRetries: 0 },
      logLevel: 'off',
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.delete('authorization');
        return fetch(input, { ...init, headers });
      },
    });
    const error = await rejection(keyless.models.list());
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.status).toBe(403);
  });

  it('an unknown model → BadRequestError (400)', async () => {
    const error = await rejection(client().systemOne({ model: 'jev-9000', state: 's', questions: { q: noul('x') } }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(/Unknown model "jev-9000"/);
    expect((error.body as unknown as { detail: { error_type: string } }).detail.error_type).toBe('invalid_model');
  });

  it('a limit → BadRequestError (400) with a sentence', async () => {
    const error = await rejection(client().systemOne({ state: 's', questions: { empty: choice('pick', {}) } }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(/"empty" is a choice with no options/);
  });

  it('over the token budget → BadRequestError whose body.detail.error_type is max_tokens_exceeded', async () => {
    const error = await rejection(client().systemOne({ state: 'abcd'.repeat(33_000), questions: { q: noul('x') } }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error.body as unknown as { detail: { error_type: string } }).detail.error_type).toBe('max_tokens_exceeded');
    expect(error.message).toMatch(/^400 The state and the longest question need about \d+ tokens/);
  });

  it('a schema violation → UnprocessableEntityError (422) naming the field', async () => {
    const error = await rejection(
      client().systemOne({
        state: 's',
        questions: { urgency: { type: 'choice', instructions: 'x', criteria: 'high' } as never },
      }),
    );
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.body.detail[0].loc).toEqual(['body', 'questions', 'urgency', 'criteria']);
    expect(error.message).toMatch(/questions\.urgency\.criteria: /);
  });
});
