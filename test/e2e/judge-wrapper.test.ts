// The /webhook/v1/systemone and /webhook/v1/models wrapper workflow on the real n8n answers exactly like the judge
// server it wraps: same answers, same statuses and envelopes, and the unmodified TypeSafe SDK works against it.
import {
  AuthenticationError,
  BadRequestError,
  choice,
  noul,
  PermissionDeniedError,
  score,
  TypeSafeClient,
  UnprocessableEntityError,
} from '@typesafe-ai/sdk';
import { describe, expect, it } from 'vitest';

import { e2eStack } from './setup/harness';
import { E2E_JUDGE_KEY, E2E_JUDGE_MODEL, E2E_WRAPPER_KEY } from './setup/systemone-judge';

const stack = e2eStack();
const judgeUrl = stack.fakeUrls.E2E_SYSTEMONE_JUDGE_URL;

const ticketRequest = {
  model: 'jev-latest',
  state: { ticket: 'I was charged twice for my subscription. Please fix this today!', customer: { plan: 'pro' } },
  questions: {
    urgent: { type: 'noul', instructions: 'Does the customer need an answer today?' },
    'topic ü/1': {
      type: 'choice',
      instructions: 'What is the ticket about?',
      criteria: { billing: 'payments, invoices, refunds', bug: null, other: { hint: 'anything else' } },
    },
    anger: { type: 'score', instructions: 'How angry is the customer?', criteria: ['calm', 'annoyed', 'angry'] },
  },
};

interface Reply {
  status: number;
  body: unknown;
}

/** `authorization: null` sends no Authorization header. */
async function post(url: string, body: unknown, authorization: string | null): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const direct = (body: unknown, authorization: string | null = `Bearer ${E2E_JUDGE_KEY}`) =>
  post(`${judgeUrl}/v1/systemone`, body, authorization);

async function wrapper(body: unknown, authorization: string | null = `Bearer ${E2E_WRAPPER_KEY}`): Promise<Reply> {
  const response = await stack.webhook('v1/systemone', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text, so a failed assertion shows it
  }
  return { status: response.status, body: parsed };
}

describe('the System One wrapper workflow', () => {
  it('is imported and active (POST /v1/systemone and GET /v1/models, one small workflow each)', () => {
    expect(stack.workflows.find((workflow) => workflow.id === 'sysOneWrapper001')).toMatchObject({ active: true });
    expect(stack.workflows.find((workflow) => workflow.id === 'sysOneModels0001')).toMatchObject({ active: true });
  });

  it('answers noul, choice and score exactly like the judge server', async () => {
    const [viaServer, viaWrapper] = [await direct(ticketRequest), await wrapper(ticketRequest)];
    expect(viaServer.status).toBe(200);
    expect(viaWrapper).toEqual(viaServer);
    const body = viaWrapper.body as { model: string; answers: Record<string, { type: string }> };
    expect(body.model).toBe(E2E_JUDGE_MODEL);
    expect(Object.keys(body.answers)).toEqual(['urgent', 'topic ü/1', 'anger']);
    expect(body.answers['topic ü/1']).toMatchObject({ type: 'choice', probabilities: { billing: expect.any(Number) } });
  });

  it('answers 403 without a key and 401 with a wrong one, with the server envelopes', async () => {
    const missing = await wrapper(ticketRequest, null);
    expect(missing).toEqual(await direct(ticketRequest, null));
    expect(missing).toEqual({
      status: 403,
      body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
    });
    const notBearer = await wrapper(ticketRequest, 'Basic dXNlcjpwYXNz');
    expect(notBearer).toEqual(await direct(ticketRequest, 'Basic dXNlcjpwYXNz'));
    expect(notBearer.status).toBe(403);
    const wrong = await wrapper(ticketRequest, 'Bearer not-the-key');
    expect(wrong).toEqual(await direct(ticketRequest, 'Bearer not-the-key'));
    expect(wrong).toEqual({
      status: 401,
      body: { detail: { error_type: 'authentication_error', message: 'Invalid API key.' } },
    });
    // The judge's own key is not a wrapper key.
    expect((await wrapper(ticketRequest, `Bearer ${E2E_JUDGE_KEY}`)).status).toBe(401);
  });

  it('answers a bad question with 422 naming the field, and an unknown model with 400, like the server', async () => {
    const bad = { ...ticketRequest, questions: { urgency: { type: 'choice', instructions: 'How urgent?' } } };
    const viaWrapper = await wrapper(bad);
    expect(viaWrapper).toEqual(await direct(bad));
    expect(viaWrapper.status).toBe(422);
    const locations = (viaWrapper.body as { detail: Array<{ loc: unknown[] }> }).detail.map((entry) => entry.loc);
    expect(locations).toContainEqual(['body', 'questions', 'urgency', 'criteria']);

    const unknownModel = { ...ticketRequest, model: 'no-such-model' };
    const refused = await wrapper(unknownModel);
    expect(refused).toEqual(await direct(unknownModel));
    expect(refused.status).toBe(400);
  });

  it("answers GET /v1/models with the server's model list, behind the same key check", async () => {
    const get = async (url: string, authorization: string | null): Promise<Reply> => {
      const response = await fetch(url, { headers: authorization === null ? {} : { authorization } });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    await stack.webhook('v1/models', { headers: { authorization: `Bearer ${E2E_WRAPPER_KEY}` } }); // waits out activation
    const viaWrapper = await get(`${stack.webhookUrl}/v1/models`, `Bearer ${E2E_WRAPPER_KEY}`);
    const viaServer = await get(`${judgeUrl}/v1/models`, `Bearer ${E2E_JUDGE_KEY}`);
    expect(viaServer.status).toBe(200);
    expect(viaWrapper).toEqual(viaServer);
    expect((viaWrapper.body as { models: Array<{ name: string }> }).models.map((model) => model.name)).toContain(
      E2E_JUDGE_MODEL,
    );
    for (const authorization of [null, 'Bearer not-the-key', 'Basic dXNlcjpwYXNz']) {
      expect(await get(`${stack.webhookUrl}/v1/models`, authorization)).toEqual(
        await get(`${judgeUrl}/v1/models`, authorization),
      );
    }
    expect((await get(`${stack.webhookUrl}/v1/models`, 'Bearer not-the-key')).status).toBe(401);
    expect((await get(`${stack.webhookUrl}/v1/models`, null)).status).toBe(403);
  });

  it('answers a body that is not a System One request with 422, not 500', async () => {
    for (const body of [[1, 2], 'just text', { state: 'no questions' }]) {
      const viaWrapper = await wrapper(body);
      expect(viaWrapper.status).toBe(422);
      expect(viaWrapper).toEqual(await direct(body));
    }
  });
});

describe('the unmodified @typesafe-ai/sdk against the wrapper', () => {
  const client = (baseURL: string, apiKey: string) =>
    new TypeSafeClient({ baseURL, apiKey, retry: { maxRetries: 0 }, logLevel: 'off', timeout: 30_000 });
  const questions = {
    urgent: noul('Does the customer need an answer today?'),
    topic: choice('What is the ticket about?', { billing: 'payments', bug: null, other: null }),
    anger: score('How angry is the customer?', ['calm', 'annoyed', 'angry']),
  };
  const state = 'I was charged twice. Please fix this ASAP.';

  it('gets the same answers through the wrapper URL as from the server', async () => {
    const viaWrapper = await client(stack.webhookUrl, E2E_WRAPPER_KEY).systemOne({ state, questions });
    const viaServer = await client(judgeUrl, E2E_JUDGE_KEY).systemOne({ state, questions });
    expect(viaWrapper.model).toBe(E2E_JUDGE_MODEL);
    expect(viaWrapper.answers).toEqual(viaServer.answers);
    expect(viaWrapper.answers.urgent.noul).toBeGreaterThanOrEqual(0);
    expect(Object.keys(viaWrapper.answers.topic.probabilities)).toEqual(['billing', 'bug', 'other']);
    expect(Object.keys(viaWrapper.answers.anger.probabilities)).toEqual(['0', '1', '2']);
    expect(viaWrapper.usage).toEqual(viaServer.usage);
  });

  it('lists the same models through the wrapper URL as from the server (models.list())', async () => {
    const viaWrapper = await client(stack.webhookUrl, E2E_WRAPPER_KEY).models.list();
    const viaServer = await client(judgeUrl, E2E_JUDGE_KEY).models.list();
    expect(viaWrapper).toEqual(viaServer);
    expect(viaWrapper.map((model) => model.name)).toContain(E2E_JUDGE_MODEL);
    await expect(client(stack.webhookUrl, 'wrong-key').models.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('raises the SDK error classes for 401, 403, 422 and 400', async () => {
    await expect(client(stack.webhookUrl, 'wrong-key').systemOne({ state, questions })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    const noKey = new TypeSafeClient({
      baseURL: stack.webhookUrl,
      apiKey: 'unused',
      retry: { maxRetries: 0 },
      logLevel: 'off',
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.delete('authorization');
        return fetch(input, { ...init, headers });
      },
    });
    await expect(noKey.systemOne({ state, questions })).rejects.toBeInstanceOf(PermissionDeniedError);
    const wrapperClient = client(stack.webhookUrl, E2E_WRAPPER_KEY);
    await expect(
      wrapperClient.systemOne({ state, questions: { topic: { type: 'choice', instructions: 7 } as never } }),
    ).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(wrapperClient.systemOne({ state, questions, model: 'no-such-model' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});
