// The webhook guard (scripts/runtime/webhook-guard.js) in front of a stand-in for n8n's listener on a real HTTP
// server: what it refuses, in which envelope, and that whatever it lets through reaches the listener as it was sent
// (n8n's readRawBody takes req.rawBody; bodies n8n leaves to the node stay unread). The real n8n: e2e
// test/e2e/webhook-protection.test.ts.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookGuard,
  guardOptionsFromEnv,
  installWebhookGuard,
  jsonNestingDepth,
} from '../../scripts/runtime/webhook-guard';

interface Seen {
  url: string;
  rawBody?: Buffer;
  streamed: Buffer;
}

const MAX_BYTES = 64 * 1024;
let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  // Stands in for n8n: records what reached it and reads whatever is left of the stream, then answers 299.
  server = createServer((req: IncomingMessage & { rawBody?: Buffer }, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', rawBody: req.rawBody, streamed: Buffer.concat(chunks) });
      res.writeHead(299, { 'content-type': 'text/plain' });
      res.end('n8n');
    });
    if (req.readableEnded) req.emit('end');
  });
  installWebhookGuard(server, createWebhookGuard({ maxBytes: MAX_BYTES }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A body without Content-Length (chunked), written in pieces. */
function postChunked(path: string, pieces: Buffer[], headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${base}${path}`);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: new Headers(res.headers as Record<string, string>),
            body: JSON.parse(text || 'null'),
            text,
          }),
        );
      },
    );
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const passed = (answer: Answer) => answer.status === 299;

describe('webhook guard: the System One routes answer like the judge server', () => {
  it('lets a good body through to n8n, exactly as sent', async () => {
    const body = '\ufeff{"model":"jev-latest","state":"ü","questions":{}}';
    const answer = await post('/webhook/v1/systemone', body);
    expect(passed(answer)).toBe(true);
    const last = seen.at(-1)!;
    expect(last.url).toBe('/webhook/v1/systemone');
    expect(last.rawBody?.toString('utf8')).toBe(body);
    expect(last.streamed.length).toBe(0);
  });

  it('malformed JSON → 422 naming ["body"], with the request id and Server-Timing', async () => {
    const answer = await post('/webhook/v1/systemone', '{"model": ', { 'x-request-id': 'trace-1' });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      detail: [{ loc: ['body'], msg: expect.stringMatching(/^The body is not valid JSON: /), type: 'json_invalid' }],
      error_type: 'invalid_request_error',
    });
    expect(answer.headers.get('x-request-id')).toBe('trace-1');
    expect(answer.headers.get('x-typesafe-request-id')).toBe('trace-1');
    expect(answer.headers.get('server-timing')).toMatch(/^total;dur=[\d.]+$/);
    expect(answer.text).not.toMatch(/stack|at .*\.js/);
    const fresh = await post('/webhook/v1/systemone', 'nope', { 'x-request-id': 'bad id' });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('JSON nested deeper than 64 levels → 400, before parsing (malformed or not)', async () => {
    const tooDeep = await post('/webhook/v1/systemone', `{"model":"m","state":${deep(5000)},"questions":{}}`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body).toEqual({
      detail: { error_type: 'invalid_request_error', message: 'The body nests JSON deeper than 64 levels.' },
    });
    expect((await post('/webhook/v1/systemone', '['.repeat(100))).status).toBe(400);
    expect(passed(await post('/webhook/v1/systemone', `{"state":${deep(63)}}`))).toBe(true);
    // Brackets inside strings do not count.
    expect(passed(await post('/webhook/v1/systemone', JSON.stringify({ state: '['.repeat(500) })))).toBe(true);
  });

  it('a body over the limit → 413 request_too_large: from Content-Length, chunked, and gzip-inflated', async () => {
    const expected = {
      detail: { error_type: 'request_too_large', message: `The request body is larger than ${MAX_BYTES} bytes.` },
    };
    const declared = await post('/webhook/v1/systemone', JSON.stringify({ state: 'x'.repeat(MAX_BYTES) }));
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual(expected);
    expect(declared.headers.get('x-request-id')).toBeTruthy();
    const chunked = await postChunked('/webhook/v1/models', [Buffer.alloc(40_000, 0x20), Buffer.alloc(40_000, 0x20)]);
    expect(chunked.status).toBe(413);
    expect(chunked.body).toEqual(expected);
    const bomb = gzipSync(Buffer.from(JSON.stringify({ state: 'x'.repeat(10 * MAX_BYTES) })));
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const inflated = await post('/webhook/v1/systemone', bomb, { 'content-encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    const corrupt = await post('/webhook/v1/systemone', Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(422);
  });

  it('reads and drops the rest of a refused body, so a client still sending gets the answer', async () => {
    for (let i = 0; i < 5; i++) {
      const declared = await post('/webhook/v1/systemone', Buffer.alloc(3 * MAX_BYTES, 0x20));
      expect(declared.status).toBe(413);
      const chunked = await postChunked(
        '/webhook/agent',
        Array.from({ length: 24 }, () => Buffer.alloc(8 * 1024, 0x20)),
      );
      expect(chunked.status).toBe(413);
    }
    // The connection stays usable: the next request is answered normally.
    expect(passed(await post('/webhook/v1/systemone', '{}'))).toBe(true);
  });

  it('hands a gzip body to n8n inflated, as n8n reads it', async () => {
    const body = JSON.stringify({ model: 'jev-latest', state: 's', questions: {} });
    expect(passed(await post('/webhook/v1/systemone', gzipSync(Buffer.from(body)), { 'content-encoding': 'gzip' })));
    expect(seen.at(-1)!.rawBody?.toString()).toBe(body);
  });
});

describe('webhook guard: the assistant route answers in {error}', () => {
  it('malformed JSON → 400, nesting → 400, size → 413, all naming the body', async () => {
    const malformed = await post('/webhook/agent', '{"message": "hi", ');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(malformed.body).toEqual({
      error: { code: 'invalid_request', message: expect.stringMatching(/^body: is not valid JSON \(/), field: 'body' },
    });
    const nested = await post('/webhook/agent', `{"message":"hi","user_id":"u","metadata":{"a":${deep(5000)}}}`);
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual({
      error: { code: 'invalid_request', message: 'body: must not nest JSON deeper than 64 levels', field: 'body' },
    });
    const large = await post('/webhook/agent', JSON.stringify({ message: 'x'.repeat(MAX_BYTES) }));
    expect(large.status).toBe(413);
    expect(large.body).toEqual({
      error: { code: 'body_too_large', message: `body: must be at most ${MAX_BYTES} bytes`, field: 'body' },
    });
    expect(passed(await post('/webhook-test/agent', '{"message":"hi","user_id":"u"}'))).toBe(true);
    expect((await post('/webhook-test/agent', '{')).status).toBe(400);
  });
});

describe('webhook guard: everything else', () => {
  it("other webhooks: only the size, in n8n's envelope; their JSON is n8n's business", async () => {
    const large = await post('/webhook/some-other-flow', JSON.stringify({ x: 'y'.repeat(MAX_BYTES) }));
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ code: 413, message: `The request body is larger than ${MAX_BYTES} bytes.` });
    expect(passed(await post('/webhook/some-other-flow', '{not json'))).toBe(true);
    expect(seen.at(-1)!.rawBody?.toString()).toBe('{not json');
    expect(passed(await post('/webhook/some-other-flow', `{"a":${deep(500)}}`))).toBe(true);
    const corrupt = await post('/webhook/some-other-flow', Buffer.from('not gzip'), { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body).toEqual({ code: 400, message: expect.stringMatching(/^The request body cannot be read: /) });
  });

  it('leaves bodies n8n does not read itself, and paths that are not webhooks, untouched', async () => {
    const binary = await post('/webhook/agent', Buffer.alloc(2 * MAX_BYTES, 1), {
      'content-type': 'application/octet-stream',
    });
    expect(passed(binary)).toBe(true);
    expect(seen.at(-1)!.rawBody).toBeUndefined();
    expect(seen.at(-1)!.streamed.length).toBe(2 * MAX_BYTES);
    const form = await post('/webhook/agent', '--x\r\n\r\n--x--', {
      'content-type': 'multipart/form-data; boundary=x',
    });
    expect(passed(form)).toBe(true);
    expect(seen.at(-1)!.rawBody).toBeUndefined();
    const rest = await post('/rest/login', '{broken');
    expect(passed(rest)).toBe(true);
    expect(seen.at(-1)!.rawBody).toBeUndefined();
    const plain = await post('/webhook/agent', 'just text', { 'content-type': 'text/plain' });
    expect(passed(plain)).toBe(true);
    expect(seen.at(-1)!.rawBody?.toString()).toBe('just text');
    const odd = await post('/webhook/v1/systemone', '{}', { 'content-type': 'application/json; charset=klingon' });
    expect(odd.status).toBe(422);
  });
});

describe('webhook guard: settings and the hook file', () => {
  it("reads n8n's payload limit and endpoint names", () => {
    expect(guardOptionsFromEnv({})).toEqual({
      maxBytes: 16 * 1024 * 1024,
      maxDepth: 64,
      endpoints: ['webhook', 'webhook-test'],
    });
    expect(guardOptionsFromEnv({ N8N_PAYLOAD_SIZE_MAX: '2', N8N_ENDPOINT_WEBHOOK: 'hooks' })).toMatchObject({
      maxBytes: 2 * 1024 * 1024,
      endpoints: ['hooks', 'webhook-test'],
    });
    expect(jsonNestingDepth('{"a":"[[[","b":[{}]}')).toBe(3);
  });

  it('exports only what n8n reads as hooks: {resource: {operation: [functions]}}', () => {
    // As n8n loads it: require() of the file.
    const hookFile = createRequire(__filename)('../../scripts/runtime/webhook-guard.js') as Record<string, unknown> & {
      n8n: { ready: unknown[] };
    };
    // n8n 2.41.1 ExternalHooks.loadHooks: every exported value's own keys are operations holding arrays.
    for (const [resource, operations] of Object.entries(hookFile)) {
      for (const operation of Object.keys(operations as object)) {
        const hooks = (operations as Record<string, unknown>)[operation];
        expect(Array.isArray(hooks), `${resource}.${operation}`).toBe(true);
        for (const hook of hooks as unknown[]) expect(typeof hook).toBe('function');
      }
    }
    expect(hookFile.n8n.ready).toHaveLength(1);
  });
});
