// A loopback System One provider for the node's unit tests: it speaks the wire protocol (Bearer auth,
// {model, state, questions} → {model, answers, usage}, GET /v1/models, Jev's error envelope) with answers that
// follow simple visible rules, so routing can be checked. The e2e tests use the real judge server instead.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Answer, Question, SystemOneRequest } from 'systemone-judge/core';

export interface SystemOneServer {
  url: string;
  requests: SystemOneRequest[];
  close(): Promise<void>;
}

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
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const authorization = request.headers.authorization;
      if (!authorization) return send(403, { detail: 'Not authenticated' });
      if (authorization !== `Bearer ${apiKey}`) {
        return send(401, { detail: 'Invalid API key', error_type: 'authentication_error' });
      }
      if (request.method === 'GET' && request.url === '/v1/models') return send(200, { models: MODELS });
      if (request.method !== 'POST' || request.url !== '/v1/systemone') return send(404, { detail: 'Not Found' });
      let body: SystemOneRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SystemOneRequest;
      } catch {
        return send(422, { detail: [{ loc: ['body'], msg: 'not JSON', type: 'json_invalid' }] });
      }
      requests.push(body);
      if (!body || typeof body !== 'object' || !body.questions || typeof body.questions !== 'object') {
        return send(422, { detail: [{ loc: ['body', 'questions'], msg: 'Field required', type: 'missing' }] });
      }
      const answers: Record<string, Answer> = {};
      for (const [name, question] of Object.entries(body.questions)) {
        if (!['noul', 'choice', 'score'].includes(question?.type)) {
          return send(422, {
            detail: [
              {
                loc: ['body', 'questions', name, 'type'],
                msg: 'Input should be noul, choice or score',
                type: 'literal_error',
              },
            ],
          });
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
