import { NodeApiError, NodeOperationError, type INodeExecutionData } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Judge } from '../../../nodes/Judge/Judge.node';
import { executeFunctions, nodeVersion, runNode, type ExecuteOptions } from '../helpers/executeFunctions';
import { BUDGET_SENTENCE, MODELS, SERVER_TIMING, startSystemOneServer, type SystemOneServer } from './systemOneServer';

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
    // (The shared failedItem may also put the NodeOperationError on the item, for n8n's error output.)
    expect(out).toHaveLength(2);
    expect(out).toMatchObject([
      { json: { error: expect.stringContaining('State: is empty'), field: 'State' }, pairedItem: { item: 0 } },
      { json: { error: expect.stringContaining('State: is empty'), field: 'State' }, pairedItem: { item: 1 } },
    ]);
    expect(out.map((item) => Object.keys(item.json).sort())).toEqual([
      ['error', 'field'],
      ['error', 'field'],
    ]);
  });

  it("with continueOnFail, a refused item carries the reply's httpCode and errorType beside its error", async () => {
    const run = (model: string) =>
      runNode(judge, {
        parameters: { mode: 'judge', model, state: 'x', questions: topicQuestions },
        items: [{ json: {} }],
        credentials,
        continueOnFail: true,
      });
    const [[overBudget]] = await run('over-budget');
    expect(overBudget.json).toEqual({
      error: expect.stringContaining(BUDGET_SENTENCE),
      httpCode: 402,
      errorType: 'budget_exceeded',
    });
    const [[unknown]] = await run('no-such-model');
    expect(unknown.json).toMatchObject({ httpCode: 400, errorType: 'invalid_model' });
    // A proxy's page has no error type: only the status.
    const [[proxied]] = await run('behind-a-broken-proxy');
    expect(proxied.json).toEqual({ error: expect.any(String), httpCode: 502 });
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
  /** Runs the node; returns its outputs and what it answered the webhook call with. */
  async function passThrough(options: ExecuteOptions) {
    const version = nodeVersion(judge);
    const context = executeFunctions(version, options);
    const [success, failure] = (await version.execute!.call(context)) as INodeExecutionData[][];
    return { success, failure, responses: context.responses };
  }
  const pass = (item: ReturnType<typeof webhookItem>, overrides = {}) =>
    passThrough({ parameters: { mode: 'passThrough' }, items: [item], credentials: { ...credentials, ...overrides } });
  const withKey = (headers: Record<string, unknown> = {}) => ({ authorization: `Bearer ${WRAPPER_KEY}`, ...headers });

  it('forwards the body unchanged, answers the call with the judge reply and emits it on Success', async () => {
    const { success, failure, responses } = await pass(webhookItem(withKey()));
    expect(server.requests.at(-1)).toEqual(body);
    const answer = { model: 'judge-latest-2026-11-01', answers: { urgent: { type: 'noul', noul: 0.9 } }, usage: {} };
    expect(failure).toEqual([]);
    expect(success).toEqual([{ json: { ...answer, usage: expect.any(Object) }, pairedItem: { item: 0 } }]);
    expect(responses).toEqual([
      {
        statusCode: 200,
        body: success[0].json,
        headers: {
          'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
          'x-typesafe-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
          'server-timing': SERVER_TIMING,
        },
      },
    ]);
    // The id is the one the node sent to the judge, which the judge kept.
    const id = (responses[0] as { headers: Record<string, string> }).headers['x-request-id'];
    expect(server.headers.at(-1)?.['x-request-id']).toBe(id);
  });

  it("passes the caller's X-Request-Id to the judge and back; a malformed one is replaced", async () => {
    const { responses } = await pass(webhookItem(withKey({ 'x-request-id': 'trace-42.a:b' })));
    expect(server.headers.at(-1)?.['x-request-id']).toBe('trace-42.a:b');
    expect(responses[0]).toMatchObject({
      headers: { 'x-request-id': 'trace-42.a:b', 'x-typesafe-request-id': 'trace-42.a:b' },
    });
    const odd = await pass(webhookItem(withKey({ 'x-request-id': 'has spaces and ü' })));
    expect(odd.responses[0]).toMatchObject({ headers: { 'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });

  it('answers 403 without a key and 401 for a wrong key, without calling the judge, with headers', async () => {
    const before = server.requests.length;
    const missing = await pass(webhookItem({ 'x-request-id': 'no-key-1' }));
    expect(missing.failure[0].json).toEqual({
      statusCode: 403,
      body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
    });
    expect(missing.responses).toEqual([
      {
        statusCode: 403,
        body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
        headers: {
          'x-request-id': 'no-key-1',
          'x-typesafe-request-id': 'no-key-1',
          'server-timing': expect.stringMatching(/^total;dur=[\d.]+$/),
        },
      },
    ]);
    const wrong = await pass(webhookItem({ authorization: 'Bearer nope' }));
    expect(wrong.failure[0].json).toEqual({
      statusCode: 401,
      body: { detail: { error_type: 'authentication_error', message: 'Invalid API key.' } },
    });
    expect(wrong.responses[0]).toMatchObject({ statusCode: 401 });
    expect(server.requests.length).toBe(before);
  });

  it("passes the judge's own error status, envelope and headers through", async () => {
    const bad = { ...body, questions: { urgency: { type: 'maybe' } } };
    const { success, failure, responses } = await pass(webhookItem(withKey({ 'x-request-id': 'bad-1' }), bad));
    expect(success).toEqual([]);
    const envelope = {
      detail: [{ loc: ['body', 'questions', 'urgency', 'type'], msg: expect.any(String), type: 'literal_error' }],
      error_type: 'invalid_request_error',
    };
    expect(failure[0].json).toEqual({ statusCode: 422, body: envelope });
    expect(responses).toEqual([
      {
        statusCode: 422,
        body: envelope,
        headers: { 'x-request-id': 'bad-1', 'x-typesafe-request-id': 'bad-1', 'server-timing': SERVER_TIMING },
      },
    ]);
    const unknown = await pass(webhookItem(withKey(), { ...body, model: 'no-such-model' }));
    expect(unknown.failure[0].json).toEqual({
      statusCode: 400,
      body: { detail: { error_type: 'invalid_model', message: expect.stringContaining('Unknown model') } },
    });
  });

  it('wraps an answer without the envelope in the server shape, without the upstream text', async () => {
    const { failure, responses } = await pass(webhookItem(withKey(), { ...body, model: 'behind-a-broken-proxy' }));
    const envelope = {
      detail: {
        error_type: 'backend_error',
        message: 'The judge answered HTTP 502 without a System One error body.',
      },
    };
    expect(failure[0].json).toEqual({ statusCode: 502, body: envelope });
    expect(responses[0]).toMatchObject({ statusCode: 502, body: envelope });
    expect(JSON.stringify(responses)).not.toContain('10.0.0.7');
  });

  it('refuses a body nested deeper than the server allows with its 400, without calling the judge', async () => {
    const before = server.requests.length;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5000; i++) deep = [deep];
    const { failure, responses } = await pass(webhookItem(withKey(), { ...body, state: deep }));
    const envelope = {
      detail: { error_type: 'invalid_request_error', message: 'The body nests JSON deeper than 64 levels.' },
    };
    expect(failure[0].json).toEqual({ statusCode: 400, body: envelope });
    expect(responses[0]).toMatchObject({ statusCode: 400, body: envelope });
    expect(server.requests.length).toBe(before);
    // 64 levels in all (the body's own object is one) still go through.
    let deepest: unknown = 1;
    for (let i = 0; i < 63; i++) deepest = [deepest];
    const fine = await pass(webhookItem(withKey(), { ...body, state: deepest }));
    expect(fine.failure).toEqual([]);
  });

  it('answers 503 when no inbound key is configured and 502 when the judge is unreachable', async () => {
    const unconfigured = await pass(webhookItem({ authorization: 'Bearer ' }), {
      systemOneInboundKeyApi: { apiKey: '' },
    });
    expect(unconfigured.failure[0].json).toMatchObject({ statusCode: 503 });
    expect(unconfigured.responses[0]).toMatchObject({ statusCode: 503 });
    const unreachable = await pass(webhookItem(withKey()), {
      systemOneApi: { baseUrl: 'http://127.0.0.1:9', apiKey: JUDGE_KEY },
    });
    expect(unreachable.failure[0].json).toMatchObject({
      statusCode: 502,
      body: { detail: { error_type: 'backend_error', message: expect.stringContaining('did not answer') } },
    });
    expect(unreachable.responses[0]).toMatchObject({
      statusCode: 502,
      headers: { 'server-timing': expect.stringMatching(/^total;dur=/) },
    });
  });

  it('answers the call once, with the first item, when several items come in', async () => {
    const { success, failure, responses } = await passThrough({
      parameters: { mode: 'passThrough' },
      items: [webhookItem({}), webhookItem(withKey())],
      credentials,
    });
    expect(failure.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
    expect(success.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ statusCode: 403 });
  });

  it('with Endpoint "GET /v1/models" answers the judge\'s model list, behind the same key check', async () => {
    const models = (headers: Record<string, unknown>) =>
      passThrough({
        parameters: { mode: 'passThrough', endpoint: 'models' },
        items: [{ json: { headers, params: {}, query: {}, body: {} } as never }],
        credentials,
      });
    const before = server.requests.length;
    const listed = await models(withKey({ 'x-request-id': 'models-1' }));
    expect(listed.failure).toEqual([]);
    expect(listed.success).toEqual([{ json: { models: MODELS }, pairedItem: { item: 0 } }]);
    expect(listed.responses).toEqual([
      {
        statusCode: 200,
        body: { models: MODELS },
        headers: { 'x-request-id': 'models-1', 'x-typesafe-request-id': 'models-1', 'server-timing': SERVER_TIMING },
      },
    ]);
    expect((await models({ authorization: 'Bearer nope' })).failure[0].json).toMatchObject({ statusCode: 401 });
    expect((await models({})).failure[0].json).toMatchObject({ statusCode: 403 });
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
