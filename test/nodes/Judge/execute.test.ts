import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Judge } from '../../../nodes/Judge/Judge.node';
import { runNode } from '../helpers/executeFunctions';
import { MODELS, startSystemOneServer, type SystemOneServer } from './systemOneServer';

const JUDGE_KEY = 'judge-key-for-tests';
const WRAPPER_KEY = 'wrapper-key-for-tests';

let server: SystemOneServer;
let judge: Judge;
let credentials: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  server = await startSystemOneServer(JUDGE_KEY);
  judge = new Judge();
  credentials = {
    systemOneApi: { baseUrl: `${server.url}/`, apiKey: JUDGE_KEY },
    systemOneInboundKeyApi: { apiKey: WRAPPER_KEY },
  };
});
afterAll(async () => server.close());

const topicQuestions = {
  question: [
    { name: 'urgent', type: 'noul', instructions: 'Is it urgent?' },
    {
      name: 'topic',
      type: 'choice',
      options: { option: [{ label: 'billing' }, { label: 'bug', description: 'something broke' }, { label: 'other' }] },
    },
  ],
};

describe('Judge node, mode "Judge Items"', () => {
  it('sends one request per item and outputs the answers with pairedItem', async () => {
    const before = server.requests.length;
    const [out] = await runNode(judge, {
      parameters: {
        mode: 'judge',
        model: 'judge-latest',
        stateFormat: 'text',
        state: 'an urgent bug',
        questions: topicQuestions,
      },
      items: [{ json: {} }, { json: {} }],
      credentials,
    });
    expect(server.requests.slice(before)).toEqual([
      {
        model: 'judge-latest',
        state: 'an urgent bug',
        questions: {
          urgent: { type: 'noul', instructions: 'Is it urgent?' },
          topic: { type: 'choice', criteria: { billing: null, bug: 'something broke', other: null } },
        },
      },
      expect.anything(),
    ]);
    expect(out).toHaveLength(2);
    expect(out.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
    expect(out[0].json).toMatchObject({
      model: 'judge-latest-2026-11-01',
      answers: { urgent: { type: 'noul', noul: 0.9 }, topic: { type: 'choice', choice: 'bug' } },
    });
  });

  it('routes by a choice question, one output per option', async () => {
    const outputs = await runNode(judge, {
      parameters: {
        mode: 'judge',
        model: 'judge-latest',
        stateFormat: 'json',
        state: '{"text":"other things"}',
        questions: topicQuestions,
        routeBy: 'choice',
        routeQuestion: 'topic',
      },
      items: [{ json: {} }],
      credentials,
    });
    expect(outputs.map((output) => output.length)).toEqual([0, 0, 1]);
    expect(server.requests.at(-1)?.state).toEqual({ text: 'other things' });
  });

  it('routes by a yes/no threshold', async () => {
    const run = (state: string, threshold: number) =>
      runNode(judge, {
        parameters: {
          mode: 'judge',
          model: 'm',
          state,
          questions: topicQuestions,
          routeBy: 'noul',
          routeQuestion: 'urgent',
          threshold,
        },
        items: [{ json: {} }],
        credentials,
      });
    expect((await run('urgent!', 0.5)).map((output) => output.length)).toEqual([1, 0]);
    expect((await run('calm', 0.5)).map((output) => output.length)).toEqual([0, 1]);
    expect((await run('calm', 0.05)).map((output) => output.length)).toEqual([1, 0]);
  });

  it('raises NodeOperationError with the item index for a bad parameter, before any request', async () => {
    const before = server.requests.length;
    const error = await runNode(judge, {
      parameters: {
        mode: 'judge',
        model: 'm',
        state: 'x',
        questions: { question: [{ name: 'size', type: 'score', levels: { level: [] } }] },
      },
      items: [{ json: {} }],
      credentials,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toContain('Questions[1] ("size").Levels');
    expect((error as NodeOperationError).context.itemIndex).toBe(0);
    expect((error as NodeOperationError).description).toBe('Check the "Questions[1] ("size").Levels" parameter.');
    expect(server.requests.length).toBe(before);
  });

  it('raises NodeApiError with the status and named field when the server refuses the request', async () => {
    const error = await runNode(judge, {
      parameters: { mode: 'judge', model: 'm', state: 'x', questions: topicQuestions },
      items: [{ json: {} }],
      credentials: { ...credentials, systemOneApi: { baseUrl: server.url, apiKey: 'wrong' } },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeApiError);
    expect((error as NodeApiError).httpCode).toBe('401');
    expect((error as NodeApiError).message).toContain('Invalid API key');
  });

  it('with continueOnFail, outputs the error on the item and goes on with the next one', async () => {
    const [out] = await runNode(judge, {
      parameters: { mode: 'judge', model: 'm', state: '', questions: topicQuestions },
      items: [{ json: {} }, { json: {} }],
      credentials,
      continueOnFail: true,
    });
    expect(out).toEqual([
      { json: { error: expect.stringContaining('State: is empty'), field: 'State' }, pairedItem: { item: 0 } },
      { json: { error: expect.stringContaining('State: is empty'), field: 'State' }, pairedItem: { item: 1 } },
    ]);
  });

  it('reports an unreachable server as NodeApiError naming the base URL', async () => {
    const error = await runNode(judge, {
      parameters: { mode: 'judge', model: 'm', state: 'x', questions: topicQuestions },
      items: [{ json: {} }],
      credentials: { ...credentials, systemOneApi: { baseUrl: 'http://127.0.0.1:9', apiKey: JUDGE_KEY } },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeApiError);
    expect((error as NodeApiError).message).toContain('http://127.0.0.1:9');
  });
});

describe('Judge node, mode "Pass Through Webhook Request"', () => {
  const body = {
    model: 'judge-latest',
    state: 'an urgent bug',
    questions: { urgent: { type: 'noul', instructions: 'Urgent?' } },
  };
  const webhookItem = (headers: Record<string, unknown>, requestBody: unknown = body) => ({
    json: { headers, params: {}, query: {}, body: requestBody } as never,
  });
  const pass = (item: ReturnType<typeof webhookItem>, overrides = {}) =>
    runNode(judge, {
      parameters: { mode: 'passThrough' },
      items: [item],
      credentials: { ...credentials, ...overrides },
    });

  it('forwards the body unchanged and emits the judge reply on the Success output', async () => {
    const [success, failure] = await pass(webhookItem({ authorization: `Bearer ${WRAPPER_KEY}` }));
    expect(server.requests.at(-1)).toEqual(body);
    expect(failure).toEqual([]);
    expect(success).toEqual([
      {
        json: {
          model: 'judge-latest-2026-11-01',
          answers: { urgent: { type: 'noul', noul: 0.9 } },
          usage: expect.any(Object),
        },
        pairedItem: { item: 0 },
      },
    ]);
  });

  it('answers 403 without a key and 401 for a wrong key, without calling the judge', async () => {
    const before = server.requests.length;
    const [, missing] = await pass(webhookItem({}));
    expect(missing[0].json).toEqual({
      statusCode: 403,
      body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
    });
    const [, wrong] = await pass(webhookItem({ authorization: 'Bearer nope' }));
    expect(wrong[0].json).toEqual({
      statusCode: 401,
      body: { detail: { error_type: 'authentication_error', message: 'Invalid API key.' } },
    });
    expect(server.requests.length).toBe(before);
  });

  it("passes the judge's own error status and envelope through", async () => {
    const bad = { ...body, questions: { urgency: { type: 'maybe' } } };
    const [success, failure] = await pass(webhookItem({ authorization: `Bearer ${WRAPPER_KEY}` }, bad));
    expect(success).toEqual([]);
    expect(failure[0].json).toEqual({
      statusCode: 422,
      body: {
        detail: [{ loc: ['body', 'questions', 'urgency', 'type'], msg: expect.any(String), type: 'literal_error' }],
      },
    });
  });

  it('answers 503 when no inbound key is configured and 502 when the judge is unreachable', async () => {
    const [, unconfigured] = await pass(webhookItem({ authorization: 'Bearer ' }), {
      systemOneInboundKeyApi: { apiKey: '' },
    });
    expect(unconfigured[0].json).toMatchObject({ statusCode: 503 });
    const [, unreachable] = await pass(webhookItem({ authorization: `Bearer ${WRAPPER_KEY}` }), {
      systemOneApi: { baseUrl: 'http://127.0.0.1:9', apiKey: JUDGE_KEY },
    });
    expect(unreachable[0].json).toMatchObject({
      statusCode: 502,
      body: { detail: { error_type: 'backend_error', message: expect.stringContaining('did not answer') } },
    });
  });

  it('with Endpoint "GET /v1/models" answers the judge\'s model list, behind the same key check', async () => {
    const models = (headers: Record<string, unknown>) =>
      runNode(judge, {
        parameters: { mode: 'passThrough', endpoint: 'models' },
        items: [{ json: { headers, params: {}, query: {}, body: {} } as never }],
        credentials,
      });
    const before = server.requests.length;
    const [success, failure] = await models({ authorization: `Bearer ${WRAPPER_KEY}` });
    expect(failure).toEqual([]);
    expect(success).toEqual([{ json: { models: MODELS }, pairedItem: { item: 0 } }]);
    const [, wrong] = await models({ authorization: 'Bearer nope' });
    expect(wrong[0].json).toMatchObject({ statusCode: 401 });
    const [, missing] = await models({});
    expect(missing[0].json).toMatchObject({ statusCode: 403 });
    expect(server.requests.length).toBe(before);
  });

  it('refuses an unknown Endpoint, naming the parameter', async () => {
    const error = await runNode(judge, {
      parameters: { mode: 'passThrough', endpoint: 'healthz' },
      items: [{ json: { headers: { authorization: `Bearer ${WRAPPER_KEY}` } } as never }],
      credentials,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toContain('Endpoint');
  });
});
