// GET /v1/openapi.json: a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator), that the real server
// answers as written (every documented operation called: its status documented, its body valid against the documented
// schema with ajv's JSON Schema 2020-12, its required headers there), and that lists every route the server answers.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeyStore } from '../../src/keys/document';
import { generateKey } from '../../src/keys/format';
import { ROUTES, startJudgeServer, type JudgeServer } from '../../src/server';
import {
  OPENAPI_DOCUMENT,
  OPENAPI_PATH,
  type Header,
  type Method,
  type Operation,
  type Ref,
  type Response,
} from '../../src/server/openapi';
import { uniformBackend } from '../helpers/exact-backend';
import { call, JUDGE_BODY, type CallInit, type CallResult } from '../helpers/http-call';

const OPERATOR_KEY = 'operator-key-0123456789';
const customer = generateKey('customer', {});
/** One request a second at most: the second request in a row gets 429. */
const limited = generateKey('limited', { ratePerSecond: 0.001 });
const DOCUMENT_ID = 'https://judge.test/openapi.json';
const METHODS: Method[] = ['get', 'post'];

let server: JudgeServer;
beforeAll(async () => {
  const store = new MemoryKeyStore();
  for (const { record } of [customer, limited]) await store.addKey(record);
  server = await startJudgeServer({
    apiKeys: [OPERATOR_KEY],
    backend: uniformBackend(),
    keys: { store },
    limits: { maxBodyBytes: 16 * 1024 },
    log: () => undefined,
  });
});
afterAll(async () => server.close());

// ---------- reading the document ----------

const pointerPart = (part: string) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'));
const pointer = (...parts: string[]) => parts.map((part) => `/${pointerPart(part)}`).join('');

/** Follows a `#/components/…` reference: the object and its JSON pointer. */
function follow<T>(item: T | Ref, at: string): { value: T; at: string } {
  if (typeof item !== 'object' || item === null || !('$ref' in item)) return { value: item, at };
  const target = item.$ref.slice(1);
  const value = target
    .split('/')
    .slice(1)
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], OPENAPI_DOCUMENT);
  return { value: value as T, at: target };
}

/** ajv (JSON Schema 2020-12, strict) over the whole document, so that schemas are compiled where they stand. */
function documentValidator(): (at: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  // The document's own fields are not schema keywords: known to ajv, checked by nothing.
  ajv.addVocabulary(Object.keys(OPENAPI_DOCUMENT));
  ajv.addSchema({ $id: DOCUMENT_ID, ...structuredClone(OPENAPI_DOCUMENT) });
  const compiled = new Map<string, ValidateFunction>();
  return (at) => {
    if (!compiled.has(at)) compiled.set(at, ajv.compile({ $ref: `${DOCUMENT_ID}#${at}` }));
    return compiled.get(at)!;
  };
}
const schemaAt = documentValidator();

function expectValid(at: string, value: unknown, what: string): void {
  const validate = schemaAt(at);
  expect(validate(value), `${what}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0].trim();

/** The response as documented at `at` (a Response or a reference to one): headers and body. */
function expectResponse(documented: Response | Ref, at: string, res: CallResult, what: string): void {
  const response = follow(documented, at);
  for (const [name, header] of Object.entries(response.value.headers ?? {})) {
    const resolved = follow<Header>(header, response.at + pointer('headers', name));
    const value = res.headers.get(name);
    if (resolved.value.required) expect(value, `${what}: header ${name}`).not.toBeNull();
    if (value !== null) expectValid(`${resolved.at}/schema`, value, `${what}: header ${name}`);
  }
  const content = Object.keys(response.value.content ?? {});
  const type = content.find((key) => mediaType(key) === mediaType(res.headers.get('content-type')));
  expect(type, `${what}: content-type ${res.headers.get('content-type')} documented in ${content}`).toBeDefined();
  const body = type === 'application/json' ? res.body : res.text;
  expectValid(`${response.at}${pointer('content', type!, 'schema')}`, body, what);
}

/** The answer to `method path` is one the document lists for it, as the document says. */
function expectDocumented(routePath: string, method: Method, res: CallResult): void {
  const what = `${method.toUpperCase()} ${routePath} → ${res.status}`;
  const responses = OPENAPI_DOCUMENT.paths[routePath]?.[method]?.responses;
  expect(responses, `${method.toUpperCase()} ${routePath} is documented`).toBeDefined();
  const documented = responses![String(res.status)];
  expect(documented, `${what} is a documented status`).toBeDefined();
  expectResponse(documented, pointer('paths', routePath, method, 'responses', String(res.status)), res, what);
}

/** Each documented operation, with the key its security asks for. */
function operations(): { routePath: string; method: Method; operation: Operation; key: string }[] {
  return Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([routePath, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method]!;
      const scheme = Object.keys((operation.security ?? OPENAPI_DOCUMENT.security)[0] ?? {})[0];
      const key = scheme === 'operatorKey' ? OPERATOR_KEY : scheme === 'apiKey' ? customer.key : '';
      return { routePath, method, operation, key };
    }),
  );
}

const bodyFor = (method: Method) => (method === 'post' ? JSON.stringify(JUDGE_BODY) : undefined);

// ---------- the tests ----------

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(OPENAPI_DOCUMENT) as never);
    expect(result.errors).toBeUndefined();
    expect([result.valid, validator.version]).toEqual([true, '3.1']);
  });

  it('the validator refuses a broken document', async () => {
    const broken = { ...structuredClone(OPENAPI_DOCUMENT), paths: { '/x': { get: { responses: { '200': {} } } } } };
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('is served at GET /v1/openapi.json to any key, as it is in openapi.ts', async () => {
    const res = await call(server.url, OPENAPI_PATH, { key: customer.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
    expectDocumented(OPENAPI_PATH, 'get', res);
  });

  it('documents the request body the server accepts, and not one it refuses', () => {
    const at = pointer('components', 'schemas', 'SystemOneRequest');
    expectValid(at, JUDGE_BODY, 'JUDGE_BODY');
    expect(schemaAt(at)({ ...JUDGE_BODY, questions: { q: { type: 'choice', criteria: 'x' } } })).toBe(false);
  });
});

describe('every documented operation answers as documented', () => {
  it.each(operations().map((o) => [`${o.method.toUpperCase()} ${o.routePath}`, o] as const))(
    '%s: with its key, without one, with a wrong one',
    async (_name, { routePath, method, operation, key }) => {
      const init: CallInit = { method: method.toUpperCase(), body: bodyFor(method) };
      const answered = await call(server.url, routePath, { ...init, key });
      expect(answered.status, answered.text).toBe(200);
      expectDocumented(routePath, method, answered);
      if (operation.security?.length === 0) return;
      const noKey = await call(server.url, routePath, init);
      expect(noKey.status).toBe(403);
      expectDocumented(routePath, method, noKey);
      const wrongKey = await call(server.url, routePath, { ...init, key: 'wrong' });
      expect(wrongKey.status).toBe(401);
      expectDocumented(routePath, method, wrongKey);
    },
  );

  const invalid = JSON.stringify({ ...JUDGE_BODY, questions: { q: { type: 'score', criteria: 'x' } } });
  const judging = { method: 'POST', key: OPERATOR_KEY };
  it.each([
    ['/v1/systemone', 422, { ...judging, body: invalid }],
    ['/v1/systemone', 400, { ...judging, body: JSON.stringify({ ...JUDGE_BODY, model: 'no-such-model' }) }],
    ['/v1/systemone', 415, { ...judging, body: '{}', headers: { 'content-type': 'text/plain' } }],
    ['/v1/systemone', 413, { ...judging, body: JSON.stringify({ ...JUDGE_BODY, state: 'x'.repeat(32 * 1024) }) }],
    ['/v1/systemone', 403, { ...judging, body: '{}', headers: { authorization: `Basic ${OPERATOR_KEY}` } }],
    ['/v1/usage?from=yesterday', 400, { key: customer.key }],
    ['/metrics', 403, { key: customer.key }],
    ['/playground/judge', 422, { method: 'POST', body: invalid }],
    ['/playground/judge', 415, { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }],
    ['/playground/judge', 403, { method: 'POST', body: invalid, headers: { origin: 'https://elsewhere.example' } }],
  ] as [string, number, CallInit][])('%s → %s', async (target, status, init) => {
    const res = await call(server.url, target, init);
    expect(res.status, res.text).toBe(status);
    expectDocumented(target.split('?')[0], (init.method ?? 'GET').toLowerCase() as Method, res);
  });

  it('a key over its rate → 429 with retry-after and retry-after-ms', async () => {
    const init = { key: limited.key, body: JSON.stringify(JUDGE_BODY) };
    const statuses = [];
    for (let i = 0; i < 2; i++) {
      const res = await call(server.url, '/v1/systemone', init);
      statuses.push(res.status);
      expectDocumented('/v1/systemone', 'post', res);
    }
    expect(statuses).toEqual([200, 429]);
  });

  it('a path not documented → 404, and a method not documented for a path → 405, as components say', async () => {
    const missing = await call(server.url, '/v1/no-such-route', { key: OPERATOR_KEY });
    expect(missing.status).toBe(404);
    expectResponse({ $ref: '#/components/responses/NotFound' }, '', missing, '404');
    for (const [routePath, item] of Object.entries(OPENAPI_DOCUMENT.paths)) {
      const method = METHODS.find((m) => !item[m])!;
      const res = await call(server.url, routePath, {
        method: method.toUpperCase(),
        key: OPERATOR_KEY,
        body: bodyFor(method),
      });
      expect(res.status, `${method} ${routePath}`).toBe(405);
      expectResponse({ $ref: '#/components/responses/MethodNotAllowed' }, '', res, `${method} ${routePath}`);
    }
  });
});

describe('every route the server answers is documented', () => {
  it('the route function’s paths and the playground’s, and nothing else', async () => {
    // The playground's paths: its JSON routes and a path per asset file, kept where the server answers them.
    const assets = readdirSync(path.join(__dirname, '../../src/server/playground/assets'));
    const candidates = [
      '/playground',
      '/playground/config',
      '/playground/judge',
      ...assets.map((f) => `/playground/${f}`),
    ];
    const playground: string[] = [];
    for (const candidate of candidates) {
      if ((await call(server.url, candidate)).status !== 404) playground.push(candidate);
    }
    const answered = [...ROUTES, ...playground].sort();
    expect(Object.keys(OPENAPI_DOCUMENT.paths).sort()).toEqual(answered);
  });
});
