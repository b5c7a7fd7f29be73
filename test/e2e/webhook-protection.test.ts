// What the real n8n answers on POST /webhook/v1/systemone and POST /webhook/agent before any workflow runs: a body
// that is not JSON, one over n8n's payload limit (16 MiB), one nested 5,000 deep. Each webhook answers in its own
// documented envelope (the judge server's; the assistant's {error}) instead of n8n's 422/500, through the webhook
// guard (scripts/runtime/webhook-guard.js, an n8n external hook), and no answer of n8n carries a stack trace
// (NODE_ENV=production). The wrapper also passes the judge's X-Request-Id and Server-Timing through.
import { beforeAll, describe, expect, it } from 'vitest';

import { e2eStack } from './setup/harness';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { E2E_JUDGE_KEY, E2E_WRAPPER_KEY } from './setup/systemone-judge';

const stack = e2eStack();
const judgeUrl = stack.fakeUrls.E2E_SYSTEMONE_JUDGE_URL;
const MIB = 1024 * 1024;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function read(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text, so a failed assertion shows it
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A raw POST (body as given, not JSON-encoded) to a production webhook. */
async function postTo(webhookPath: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return read(
    await stack.webhook(webhookPath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }),
  );
}

const toJudge = async (body: string, headers: Record<string, string> = {}) =>
  read(
    await fetch(`${judgeUrl}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${E2E_JUDGE_KEY}`, ...headers },
      body,
    }),
  );
const toWrapper = (body: string, headers: Record<string, string> = {}) =>
  postTo('v1/systemone', body, { authorization: `Bearer ${E2E_WRAPPER_KEY}`, ...headers });

/** No answer may carry a stack trace (n8n adds `stacktrace` unless NODE_ENV is production). */
function expectNoStackTrace(reply: Reply): void {
  expect(reply.text).not.toMatch(/stacktrace|\n\s+at |node_modules|\/dist\//);
}

const nested = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);
const request = (state: string) =>
  `{"model":"jev-latest","state":${state},"questions":{"q":{"type":"noul","instructions":"x"}}}`;

describe('POST /webhook/v1/systemone answers like the judge server', () => {
  it('malformed JSON: 422 naming ["body"], in the server envelope, without a stack trace', async () => {
    const viaWrapper = await toWrapper('{"model": "jev-latest", ');
    const viaServer = await toJudge('{"model": "jev-latest", ');
    expect(viaServer.status).toBe(422);
    expect(viaWrapper.status).toBe(422);
    const envelope = {
      detail: [{ loc: ['body'], msg: expect.stringMatching(/^The body is not valid JSON: /), type: 'json_invalid' }],
      error_type: 'invalid_request_error',
    };
    expect(viaServer.body).toEqual(envelope);
    expect(viaWrapper.body).toEqual(envelope);
    expect(viaWrapper.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(viaWrapper.headers.get('server-timing')).toMatch(/total;dur=/);
    expectNoStackTrace(viaWrapper);
  });

  it("a body nested 5,000 deep: the server's 400, word for word", async () => {
    const body = request(nested(5000));
    const viaWrapper = await toWrapper(body);
    const viaServer = await toJudge(body);
    expect(viaServer.status).toBe(400);
    expect({ status: viaWrapper.status, body: viaWrapper.body }).toEqual({
      status: viaServer.status,
      body: viaServer.body,
    });
    expect(viaWrapper.body).toEqual({
      detail: { error_type: 'invalid_request_error', message: 'The body nests JSON deeper than 64 levels.' },
    });
  });

  it("a 20 MB body: 413 request_too_large at n8n's payload limit; a 2 MB one gets the judge's own 413", async () => {
    const huge = await toWrapper(request(JSON.stringify('x'.repeat(20 * MIB))));
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({
      detail: { error_type: 'request_too_large', message: `The request body is larger than ${16 * MIB} bytes.` },
    });
    expectNoStackTrace(huge);
    // Under n8n's limit but over the judge's (1 MiB): n8n takes it, the judge refuses it, the wrapper passes that on.
    const body = request(JSON.stringify('x'.repeat(2 * MIB)));
    const viaWrapper = await toWrapper(body);
    const viaServer = await toJudge(body);
    expect(viaServer.status).toBe(413);
    expect({ status: viaWrapper.status, body: viaWrapper.body }).toEqual({
      status: viaServer.status,
      body: viaServer.body,
    });
  });

  it("a body over the judge's limit, sent again and again, at once and slowly: the 413 every time, never a broken pipe", async () => {
    const body = request(JSON.stringify('x'.repeat(2 * MIB)));
    const tooLarge = {
      detail: { error_type: 'request_too_large', message: `The request body is larger than ${MIB} bytes.` },
    };
    for (let i = 0; i < 10; i++) {
      expect(await toJudge(body)).toMatchObject({ status: 413, body: tooLarge });
      expect(await toWrapper(body)).toMatchObject({ status: 413, body: tooLarge });
    }
    // Streamed in pieces without a content-length, 20 ms apart: the judge answers long before the body ends.
    const slowly = (): ReadableStream<Uint8Array> => {
      const bytes = new TextEncoder().encode(body);
      const piece = 128 * 1024;
      let at = 0;
      return new ReadableStream({
        async pull(controller) {
          if (at >= bytes.length) return controller.close();
          if (at > 0) await new Promise((resolve) => setTimeout(resolve, 20));
          controller.enqueue(bytes.subarray(at, at + piece));
          at += piece;
        },
      });
    };
    const streamedInit = (authorization: string) =>
      ({
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: slowly(),
        duplex: 'half',
      }) as RequestInit;
    for (let i = 0; i < 3; i++) {
      const direct = await read(await fetch(`${judgeUrl}/v1/systemone`, streamedInit(`Bearer ${E2E_JUDGE_KEY}`)));
      expect(direct).toMatchObject({ status: 413, body: tooLarge });
      const wrapped = await read(await stack.webhook('v1/systemone', streamedInit(`Bearer ${E2E_WRAPPER_KEY}`)));
      expect(wrapped).toMatchObject({ status: 413, body: tooLarge });
    }
  });

  it("passes the judge's X-Request-Id, x-typesafe-request-id and Server-Timing out, the caller's id in", async () => {
    const good = request('"I was charged twice, please refund"');
    const answered = await toWrapper(good, { 'x-request-id': 'e2e-trace-42' });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-request-id')).toBe('e2e-trace-42');
    expect(answered.headers.get('x-typesafe-request-id')).toBe('e2e-trace-42');
    // The judge's own timing: time waiting for a slot, judging, in all.
    expect(answered.headers.get('server-timing')).toMatch(/^queue;dur=[\d.]+, engine;dur=[\d.]+, total;dur=[\d.]+$/);
    const fresh = await toWrapper(good);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.headers.get('x-typesafe-request-id')).toBe(fresh.headers.get('x-request-id'));
    // A refusal made by the node (wrong key) and one the judge made (unknown model) carry them too.
    const refused = await postTo('v1/systemone', good, { authorization: 'Bearer wrong', 'x-request-id': 'e2e-no-1' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('e2e-no-1');
    expect(refused.headers.get('server-timing')).toMatch(/^total;dur=[\d.]+$/);
    const unknown = await toWrapper(good.replace('"jev-latest"', '"no-such-model"'), { 'x-request-id': 'e2e-m-1' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ detail: { error_type: 'invalid_model' } });
    expect(unknown.headers.get('x-request-id')).toBe('e2e-m-1');
    expect(unknown.headers.get('server-timing')).toMatch(/^total;dur=[\d.]+$/);
    const models = await read(
      await stack.webhook('v1/models', {
        headers: { authorization: `Bearer ${E2E_WRAPPER_KEY}`, 'x-request-id': 'e2e-models-1' },
      }),
    );
    expect(models.status).toBe(200);
    expect(models.headers.get('x-request-id')).toBe('e2e-models-1');
  });
});

describe('POST /webhook/agent answers in the assistant envelope', () => {
  beforeAll(async () => {
    // As test/e2e/assistant-agent.test.ts: the operator sets the assistant's API key.
    await stack.api('/credentials/asstApiKeyHdr001', {
      method: 'PATCH',
      body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
    });
  });

  it('malformed JSON: 400 JSON naming the body, without a stack trace', async () => {
    const reply = await postTo('agent', '{"message": "hello", "user_id": ');
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      error: { code: 'invalid_request', message: expect.stringMatching(/^body: is not valid JSON/), field: 'body' },
    });
    expectNoStackTrace(reply);
  });

  it("a body over the limit: 413 JSON (n8n's limit; and the assistant's own, smaller one)", async () => {
    const huge = await postTo('agent', JSON.stringify({ message: 'x'.repeat(20 * MIB), user_id: 'u' }));
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({
      error: { code: 'body_too_large', message: `body: must be at most ${16 * MIB} bytes`, field: 'body' },
    });
    expectNoStackTrace(huge);
    // Under n8n's 16 MiB but over the assistant's own limit: its trigger refuses it, in the same envelope.
    const large = await postTo('agent', JSON.stringify({ message: 'x'.repeat(5 * MIB), user_id: 'u' }), {
      'x-api-key': E2E_ASSISTANT_API_KEY,
    });
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({ error: { code: 'body_too_large', field: 'body' } });
  });

  it('a body nested 5,000 deep: 400 JSON naming the body', async () => {
    const deep = `{"message":"hello","user_id":"u","metadata":{"a":${nested(5000)}}}`;
    const reply = await postTo('agent', deep, { 'x-api-key': E2E_ASSISTANT_API_KEY });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: { code: 'invalid_request', message: 'body: must not nest JSON deeper than 64 levels', field: 'body' },
    });
  });

  it('a well-formed body goes on to the assistant trigger (its own 401 without a key)', async () => {
    const reply = await postTo('agent', JSON.stringify({ message: 'hello', user_id: 'u' }));
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ error: { code: 'unauthenticated' } });
  });
});

describe('nothing n8n answers carries a stack trace', () => {
  it("n8n's own refusals: an unknown webhook, a wrong method, another webhook's JSON, the REST API", async () => {
    const replies = [
      await read(await fetch(`${stack.webhookUrl}/no-such-webhook`, { method: 'POST' })),
      await read(await fetch(`${stack.webhookUrl}/v1/systemone`)),
      await read(await fetch(`${stack.webhookUrl}/agent`, { method: 'PUT', body: '{' })),
      await read(await fetch(`${stack.n8nUrl}/rest/workflows`)),
      await read(await fetch(`${stack.n8nUrl}/api/v1/workflows`, { headers: { 'X-N8N-API-KEY': 'wrong' } })),
    ];
    for (const reply of replies) {
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expectNoStackTrace(reply);
    }
    expect(replies[0].status).toBe(404);
  });
});
