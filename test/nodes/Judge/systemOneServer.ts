// A loopback System One provider for the node's unit tests: it speaks the wire protocol as the judge server does
// (Bearer auth, {model, state, questions} → {model, answers, usage}, GET /v1/models, the error envelope
// {detail: {error_type, message}} and a 422's {detail: [{loc, msg, type}], error_type}, X-Request-Id kept when
// well formed, x-typesafe-request-id and Server-Timing on every answer) with answers that follow simple visible
// rules, so routing can be checked. The e2e tests use the real judge server instead.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Answer, Question, SystemOneRequest } from 'systemone-judge/core';

export interface SystemOneServer {
  url: string;
  requests: SystemOneRequest[];
  /** The headers of every call, in order. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** What this fake puts in Server-Timing. */
export const SERVER_TIMING = 'queue;dur=0.10, engine;dur=1.20, total;dur=1.50';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The judge server's envelope (judge/src/protocol/errors.ts). */
const failure = (errorType: string, message: string) => ({ detail: { error_type: errorType, message } });
const schemaFailure = (detail: Array<{ loc: string[]; msg: string; type: string }>) => ({
  detail,
  error_type: 'invalid_request_error',
});

/** What the model "over-budget" is refused with (402, budget_exceeded): the model gateway's sentence. */
export const BUDGET_SENTENCE = 'The daily budget of job check is spent (2.00 of 2.00 USD); it resets at 00:00 UTC.';

/** What GET /v1/models answers. */
export const MODELS = [{ name: 'judge-latest-2026-11-01', description: 'The test judge', release_date: '2026-11-01' }];

function answer(state: string, question: Question): Answer {
  if (question.type === 'noul') return { type: 'noul', noul: state.includes('urgent') ? 0.9 : 0.1 };
  if (question.type === 'choice') {
    const labels = Object.keys(question.criteria);
    const chosen = labels.find((label) => state.includes(label)) ?? labels[0];
    const probabilities = Object.fromEntries(labels.map((label) => [label, label === chosen ? 1 : 0]));
    return { type: 'choice', choice: chosen, probabilities, confidence: 1 };
  }
  const levels = question.criteria.map((_, index) => String(index));
  return {
    type: 'score',
    score: 0,
    probabilities: Object.fromEntries(levels.map((level) => [level, level === '0' ? 1 : 0])),
    legend: Object.fromEntries(question.criteria.map((level, index) => [String(index), level])),
    confidence: 1,
  };
}

export async function startSystemOneServer(apiKey: string): Promise<SystemOneServer> {
  const requests: SystemOneRequest[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    headers.push(request.headers);
    const incoming = request.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const send = (status: number, body: unknown) => {
      response.writeHead(status, {
        'content-type': 'application/json',
        'x-request-id': requestId,
        'x-typesafe-request-id': requestId,
        'server-timing': SERVER_TIMING,
      });
      response.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const authorization = request.headers.authorization;
      if (!authorization) return send(403, failure('permission_error', 'Not authenticated.'));
      if (authorization !== `Bearer ${apiKey}`) return send(401, failure('authentication_error', 'Invalid API key.'));
      if (request.method === 'GET' && request.url === '/v1/models') return send(200, { models: MODELS });
      if (request.method !== 'POST' || request.url !== '/v1/systemone') {
        return send(404, failure('not_found', `No route ${request.url}.`));
      }
      let body: SystemOneRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SystemOneRequest;
      } catch {
        return send(422, schemaFailure([{ loc: ['body'], msg: 'not JSON', type: 'json_invalid' }]));
      }
      requests.push(body);
      if (!body || typeof body !== 'object' || !body.questions || typeof body.questions !== 'object') {
        return send(422, schemaFailure([{ loc: ['body', 'questions'], msg: 'Field required', type: 'missing' }]));
      }
      if (body.model === 'behind-a-broken-proxy') {
        // What a reverse proxy in front of a judge might answer: not System One's envelope.
        response.writeHead(502, { 'content-type': 'text/html' });
        return response.end('<html><body>502 Bad Gateway (upstream 10.0.0.7:8787)</body></html>');
      }
      if (body.model === 'over-budget') {
        // A judge whose model gateway refused the call: a spending cap has no room.
        return send(402, failure('budget_exceeded', BUDGET_SENTENCE));
      }
      if (body.model === 'no-such-model') {
        return send(400, failure('invalid_model', 'Unknown model "no-such-model". Available models: judge-latest.'));
      }
      const answers: Record<string, Answer> = {};
      for (const [name, question] of Object.entries(body.questions)) {
        if (!['noul', 'choice', 'score'].includes(question?.type)) {
          return send(
            422,
            schemaFailure([
              {
                loc: ['body', 'questions', name, 'type'],
                msg: 'Input should be noul, choice or score',
                type: 'literal_error',
              },
            ]),
          );
        }
        answers[name] = answer(JSON.stringify(body.state), question);
      }
      send(200, { model: `${body.model}-2026-11-01`, answers, usage: { input_tokens: 10, output_tokens: 0 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
