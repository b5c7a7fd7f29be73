// The OpenAPI 3.1 document of every route the server answers (but the operator's console, a page with its own
// sign-in), served at GET /v1/openapi.json. Schemas are JSON Schema 2020-12 written from protocol/types.ts (the wire
// format), keys/usage.ts (usage reports) and the playground's answers; judge/test/server/openapi.test.ts checks that
// the server answers as written here, and that every route of the route function and the playground is here.
import { METRICS_PATH } from './metrics';

export const OPENAPI_PATH = '/v1/openapi.json';

/** A JSON Schema (2020-12), or a reference to one. */
export type Schema = { [keyword: string]: unknown };
export type Ref = { $ref: string };
export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}
export interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, { schema: Schema }>;
}
export interface Parameter {
  name: string;
  in: 'query' | 'header';
  description: string;
  required?: boolean;
  schema: Schema;
}
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Absent: the document's security (any API key); []: no key. */
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Response | Ref>;
}
export type Method = 'get' | 'post';
export type PathItem = Partial<Record<Method, Operation>>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  tags: { name: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    headers: Record<string, Header>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

const schemaRef = (name: string): Ref => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): Ref => ({ $ref: `#/components/responses/${name}` });
const headerRef = (name: string): Ref => ({ $ref: `#/components/headers/${name}` });

const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const PROBABILITY = { type: 'number', minimum: 0, maximum: 1 };
const COUNT = { type: 'integer', minimum: 0 };
/** An object with exactly these properties, all required unless listed in `optional`. */
function record(properties: Record<string, unknown>, optional: string[] = []): Schema {
  const required = Object.keys(properties).filter((name) => !optional.includes(name));
  return { type: 'object', required, properties, additionalProperties: false };
}

const QUESTION_SCHEMAS: Record<string, Schema> = {
  JsonValue: { description: 'Free text or any JSON value.' },
  NoulQuestion: {
    type: 'object',
    description: 'A yes/no question; needs instructions or criteria (else 400).',
    required: ['type'],
    properties: {
      type: { const: 'noul' },
      instructions: schemaRef('JsonValue'),
      criteria: {
        type: ['object', 'null'],
        properties: { true: schemaRef('JsonValue'), false: schemaRef('JsonValue') },
        additionalProperties: false,
      },
    },
  },
  ChoiceQuestion: {
    type: 'object',
    required: ['type', 'criteria'],
    properties: {
      type: { const: 'choice' },
      instructions: schemaRef('JsonValue'),
      criteria: {
        type: 'object',
        description: 'Label → description (or null), 1..255 options in the caller’s order (a count outside: 400).',
        minProperties: 1,
        maxProperties: 255,
        additionalProperties: schemaRef('JsonValue'),
      },
    },
  },
  ScoreQuestion: {
    type: 'object',
    required: ['type', 'criteria'],
    properties: {
      type: { const: 'score' },
      instructions: schemaRef('JsonValue'),
      criteria: {
        type: 'array',
        description: '2..10 levels, lowest first (a count outside: 400).',
        minItems: 2,
        maxItems: 10,
        items: schemaRef('JsonValue'),
      },
    },
  },
  Question: { oneOf: [schemaRef('NoulQuestion'), schemaRef('ChoiceQuestion'), schemaRef('ScoreQuestion')] },
  SystemOneRequest: {
    type: 'object',
    description: 'Unknown fields are ignored. Question names come back byte for byte.',
    required: ['model', 'state', 'questions'],
    properties: {
      model: { type: 'string', minLength: 1, description: 'A model id or alias from GET /v1/models.' },
      state: { type: ['string', 'object', 'array'], description: 'What the questions are about.' },
      questions: {
        type: 'object',
        description: 'Question name → question; at most limits.maxQuestions (default 1000; more: 400).',
        minProperties: 1,
        propertyNames: { minLength: 1 },
        additionalProperties: schemaRef('Question'),
      },
    },
  },
};

/** Extra answer fields (protocol/types.ts ScoringFields), present where the backend says how it scored. */
const SCORING_FIELDS = {
  method: {
    type: 'string',
    description:
      'How the answer was read: "exact_label_ids", "top_logprobs" or "samples"; through a remote provider, its own ' +
      'method, or "remote" when it does not say.',
  },
  calibrated: {
    type: 'boolean',
    description: "false for an estimate (sampling), not the model's own probabilities; absent when not known.",
  },
  coverage: { ...PROBABILITY, description: 'Label mass covered (or share of sampled replies naming a label).' },
};
const SCORING_OPTIONAL = Object.keys(SCORING_FIELDS);

const ANSWER_SCHEMAS: Record<string, Schema> = {
  NoulAnswer: record(
    { type: { const: 'noul' }, noul: { ...PROBABILITY, description: 'P(true).' }, ...SCORING_FIELDS },
    SCORING_OPTIONAL,
  ),
  ChoiceAnswer: record(
    {
      type: { const: 'choice' },
      choice: { type: 'string', description: 'The most likely label.' },
      probabilities: { type: 'object', additionalProperties: PROBABILITY },
      confidence: PROBABILITY,
      ...SCORING_FIELDS,
    },
    SCORING_OPTIONAL,
  ),
  ScoreAnswer: record(
    {
      type: { const: 'score' },
      score: { type: 'number', minimum: 0, description: 'Σ i·p_i over the levels 0..n−1.' },
      probabilities: { type: 'object', propertyNames: { pattern: '^[0-9]+$' }, additionalProperties: PROBABILITY },
      legend: { type: 'object', propertyNames: { pattern: '^[0-9]+$' }, additionalProperties: schemaRef('JsonValue') },
      confidence: PROBABILITY,
      ...SCORING_FIELDS,
    },
    SCORING_OPTIONAL,
  ),
  Answer: { oneOf: [schemaRef('NoulAnswer'), schemaRef('ChoiceAnswer'), schemaRef('ScoreAnswer')] },
  Usage: record({ input_tokens: COUNT, output_tokens: COUNT }),
  SystemOneResponse: record({
    model: { type: 'string', description: 'The pinned model id that answered.' },
    answers: { type: 'object', additionalProperties: schemaRef('Answer') },
    usage: schemaRef('Usage'),
  }),
};

const USAGE_COUNTS = {
  requests: COUNT,
  input_tokens: COUNT,
  output_tokens: COUNT,
  cost: { type: 'number' },
  upstream_tokens: {
    ...record({ prompt_tokens: COUNT, cached_tokens: COUNT, output_tokens: COUNT }),
    description: 'What the upstream model server reported (not priced; `cost` is on input_tokens). Present when any.',
  },
};

const OTHER_SCHEMAS: Record<string, Schema> = {
  ModelInfo: record(
    {
      name: { type: 'string' },
      description: { type: 'string' },
      release_date: DATE,
      scoring: record({ method: { type: 'string' }, calibrated: { type: 'boolean' } }, ['calibrated']),
    },
    ['scoring'],
  ),
  ModelList: record({ models: { type: 'array', items: schemaRef('ModelInfo') } }),
  UsageDay: record({ date: DATE, ...USAGE_COUNTS }, ['upstream_tokens']),
  UsageTotal: record(USAGE_COUNTS, ['upstream_tokens']),
  UsageReport: record({
    key: record({ id: { type: 'string' }, name: { type: 'string' } }),
    from: DATE,
    to: DATE,
    price: record({
      currency: { type: 'string' },
      input_per_million: { type: 'number' },
      output_per_million: { type: 'number' },
    }),
    days: { type: 'array', items: schemaRef('UsageDay') },
    total: schemaRef('UsageTotal'),
  }),
  Health: record({ status: { enum: ['ok', 'shutting_down'] }, backend: { type: 'string' } }),
  PlaygroundConfig: record(
    {
      open: { type: 'boolean' },
      reason: { type: 'string' },
      defaultModel: { type: 'string' },
      limits: record({ requestsPerMinute: { type: 'number' }, tokensPerHour: { type: 'number' } }),
      tokensLeft: { type: 'number' },
      models: { type: 'array', items: schemaRef('ModelInfo') },
    },
    ['tokensLeft', 'models'],
  ),
};

const ERROR_SCHEMAS: Record<string, Schema> = {
  ErrorBody: record({
    detail: record(
      {
        error_type: { type: 'string', description: 'Machine-readable; clients switch on it.' },
        message: { type: 'string', description: 'A sentence for people.' },
      },
      ['message'],
    ),
  }),
  FieldIssue: record({
    loc: { type: 'array', items: { type: ['string', 'integer'] }, description: 'Where, starting with "body".' },
    msg: { type: 'string' },
    type: { type: 'string' },
  }),
  ValidationErrorBody: record({
    detail: { type: 'array', minItems: 1, items: schemaRef('FieldIssue') },
    error_type: { type: 'string' },
  }),
};

const HEADERS: Record<string, Header> = {
  RequestId: {
    description: 'The request id: an incoming X-Request-Id of [A-Za-z0-9._:-]{1,128}, else a new UUID.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  TypesafeRequestId: { description: 'The request id again, for the TypeSafe SDK.', schema: { type: 'string' } },
  ServerTiming: { description: 'queue;dur=…, engine;dur=…, total;dur=… (milliseconds).', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string' } },
  PlaygroundTokensLeft: {
    description: 'Input tokens the open playground has left this hour.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  RetryAfterMs: { description: 'Milliseconds to wait before retrying.', required: true, schema: { type: 'string' } },
};

const STANDARD_HEADERS: Record<string, Ref> = {
  'x-request-id': headerRef('RequestId'),
  'x-typesafe-request-id': headerRef('TypesafeRequestId'),
  'server-timing': headerRef('ServerTiming'),
};

function jsonResponse(description: string, schema: Schema, headers: Record<string, Header | Ref> = {}): Response {
  return { description, headers: { ...STANDARD_HEADERS, ...headers }, content: { 'application/json': { schema } } };
}

/** An error in the envelope; `errorTypes`: the only `detail.error_type`s it can have (absent: any string). */
function errorResponse(description: string, errorTypes?: string[], headers: Record<string, Header | Ref> = {}) {
  const schema = errorTypes
    ? {
        allOf: [schemaRef('ErrorBody')],
        type: 'object',
        properties: { detail: { type: 'object', properties: { error_type: { enum: errorTypes } } } },
      }
    : schemaRef('ErrorBody');
  return jsonResponse(description, schema, headers);
}

const optional = (header: string): Header => ({ ...HEADERS[header], required: false });

const RESPONSES: Record<string, Response> = {
  BadRequest: errorResponse(
    'A well-formed request that breaks a limit or rule: invalid_model, invalid_request_error (limits, JSON nested ' +
      'deeper than limits.maxJsonDepth), max_tokens_exceeded, or the remote provider’s own type.',
  ),
  Unauthorized: errorResponse('A wrong key.', ['authentication_error']),
  Forbidden: errorResponse('No Authorization header, or not "Bearer <key>".', ['permission_error']),
  NotFound: errorResponse('A path the server does not answer (the playground’s too, when it is disabled).', [
    'not_found',
  ]),
  MethodNotAllowed: errorResponse('A method this document does not list for the path.', ['method_not_allowed']),
  PayloadTooLarge: errorResponse('The body is over limits.maxBodyBytes (default 1 MiB).', ['request_too_large']),
  UnsupportedMediaType: errorResponse('The body is not sent as application/json.', ['unsupported_media_type']),
  ValidationError: jsonResponse(
    'The body is not JSON, not an object, or breaks the schema: every broken field at once.',
    schemaRef('ValidationErrorBody'),
  ),
  TooManyRequests: errorResponse(
    'The key is over its request rate, tokens per minute or monthly tokens.',
    ['rate_limit_exceeded'],
    { 'retry-after': headerRef('RetryAfter'), 'retry-after-ms': headerRef('RetryAfterMs') },
  ),
  BudgetExceeded: errorResponse('A spending cap of the model gateway has no room for this request.', undefined, {
    'retry-after': optional('RetryAfter'),
  }),
  InternalError: errorResponse('A bug; the request id is in X-Request-Id.', ['internal_error']),
  BadGateway: errorResponse(
    'The upstream model failed: logprobs_unsupported, labels_not_covered, upstream_auth_failed, upstream_rejected, ' +
      'upstream_invalid_response, upstream_unreachable, upstream_error, backend_error.',
  ),
  ServiceUnavailable: errorResponse(
    'overloaded (the admission queue is full; retry-after: 1), upstream_rate_limited, shutting_down, or ' +
      'service_unavailable (the key store cannot be read for a key never read before).',
    undefined,
    { 'retry-after': optional('RetryAfter') },
  ),
  KeyStoreUnavailable: errorResponse('The key store cannot be read for a key never read before.', [
    'service_unavailable',
  ]),
  GatewayTimeout: errorResponse('deadline_exceeded (admission.deadlineMs passed) or upstream_timeout.'),
};

/** The errors of every authenticated route. */
const AUTHENTICATED_ERRORS = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('Forbidden'),
  '500': responseRef('InternalError'),
  '503': responseRef('KeyStoreUnavailable'),
};

/** The errors of judging a body (POST /v1/systemone and POST /playground/judge), besides 429. */
const JUDGING_ERRORS = {
  '400': responseRef('BadRequest'),
  '402': responseRef('BudgetExceeded'),
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
  '422': responseRef('ValidationError'),
  '500': responseRef('InternalError'),
  '502': responseRef('BadGateway'),
  '503': responseRef('ServiceUnavailable'),
  '504': responseRef('GatewayTimeout'),
};

const JUDGE_BODY = { required: true, content: { 'application/json': { schema: schemaRef('SystemOneRequest') } } };
const JUDGED = jsonResponse('The answers.', schemaRef('SystemOneResponse'));

const API_PATHS: Record<string, PathItem> = {
  '/v1/systemone': {
    post: {
      operationId: 'judge',
      summary: 'Answer questions about a state as probability distributions.',
      tags: ['api'],
      requestBody: JUDGE_BODY,
      responses: {
        '200': JUDGED,
        ...AUTHENTICATED_ERRORS,
        ...JUDGING_ERRORS,
        '429': responseRef('TooManyRequests'),
      },
    },
  },
  '/v1/models': {
    get: {
      operationId: 'listModels',
      summary: 'The models served, with their aliases.',
      tags: ['api'],
      responses: { '200': jsonResponse('The models.', schemaRef('ModelList')), ...AUTHENTICATED_ERRORS },
    },
  },
  '/v1/usage': {
    get: {
      operationId: 'getUsage',
      summary: 'The calling key’s usage per UTC day, with costs.',
      tags: ['api'],
      parameters: [
        { name: 'from', in: 'query', description: 'First day (default: the 1st of `to`’s month).', schema: DATE },
        { name: 'to', in: 'query', description: 'Last day, inclusive (default: today, UTC).', schema: DATE },
      ],
      responses: {
        '200': jsonResponse('The usage report.', schemaRef('UsageReport')),
        '400': errorResponse('A bad date, `from` after `to`, or a range over 366 days.', ['invalid_request_error']),
        ...AUTHENTICATED_ERRORS,
      },
    },
  },
  '/healthz': {
    get: {
      operationId: 'health',
      summary: 'Whether the server is up, and its backend.',
      tags: ['operations'],
      responses: {
        '200': jsonResponse('Up.', schemaRef('Health')),
        ...AUTHENTICATED_ERRORS,
        '503': jsonResponse('Shutting down (a Health body), or the key store cannot be read (an error).', {
          oneOf: [schemaRef('Health'), schemaRef('ErrorBody')],
        }),
      },
    },
  },
};

const OPERATIONS_PATHS: Record<string, PathItem> = {
  [METRICS_PATH]: {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format 0.0.4).',
      description: 'For the operator: an env key (JUDGE_API_KEYS / apiKeys) only; keys from the key store get 403.',
      tags: ['operations'],
      security: [{ operatorKey: [] }],
      responses: {
        '200': {
          description: 'The metrics.',
          headers: { 'x-request-id': headerRef('RequestId') },
          content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
        },
        ...AUTHENTICATED_ERRORS,
        '403': errorResponse('No key, not "Bearer <key>", or a key from the key store.', ['permission_error']),
      },
    },
  },
  [OPENAPI_PATH]: {
    get: {
      operationId: 'openapi',
      summary: 'This document.',
      tags: ['operations'],
      responses: {
        '200': jsonResponse('The OpenAPI 3.1 document.', {
          type: 'object',
          required: ['openapi', 'paths'],
          properties: { openapi: { const: '3.1.0' }, paths: { type: 'object' } },
        }),
        ...AUTHENTICATED_ERRORS,
      },
    },
  },
};

/** A static file of the playground's page. */
function playgroundFile(operationId: string, summary: string, mediaType: string): PathItem {
  const headers = { 'x-request-id': headerRef('RequestId') };
  const content = { [mediaType]: { schema: { type: 'string' } } };
  return {
    get: {
      operationId,
      summary,
      tags: ['playground'],
      security: [],
      responses: { '200': { description: summary, headers, content }, '404': responseRef('NotFound') },
    },
  };
}

const TOKENS_LEFT = { 'x-playground-tokens-left': headerRef('PlaygroundTokensLeft') };

const PLAYGROUND_PATHS: Record<string, PathItem> = {
  '/playground': playgroundFile('playgroundPage', 'The playground page.', 'text/html'),
  '/playground/app.js': playgroundFile('playgroundScript', 'The playground’s script.', 'text/javascript'),
  '/playground/app.css': playgroundFile('playgroundStyles', 'The playground’s styles.', 'text/css'),
  '/playground/config': {
    get: {
      operationId: 'playgroundConfig',
      summary: 'Whether the page may judge without a key, and the open mode’s limits.',
      tags: ['playground'],
      security: [],
      responses: {
        '200': jsonResponse('The open mode.', schemaRef('PlaygroundConfig')),
        '404': responseRef('NotFound'),
      },
    },
  },
  '/playground/judge': {
    post: {
      operationId: 'playgroundJudge',
      summary: 'Judge without a key: open mode only, same origin only, under the playground’s own limits.',
      tags: ['playground'],
      security: [],
      requestBody: JUDGE_BODY,
      responses: {
        '200': jsonResponse('The answers.', schemaRef('SystemOneResponse'), TOKENS_LEFT),
        ...JUDGING_ERRORS,
        '403': errorResponse('The open mode is off, or the request is not from the page’s own origin.', [
          'permission_error',
        ]),
        '404': responseRef('NotFound'),
        '429': errorResponse('Over the open mode’s requests per minute or tokens per hour.', ['rate_limit_exceeded'], {
          'retry-after': headerRef('RetryAfter'),
          ...TOKENS_LEFT,
        }),
      },
    },
  },
};

const DESCRIPTION =
  'The System One API of systemone-judge: questions about a state answered as probability distributions. Every ' +
  'route needs Authorization: Bearer <key> except the playground’s. Errors use one envelope, ' +
  '{"detail": {"error_type", "message"}}, except a 422, which lists the broken fields. A path not listed here ' +
  'answers 404 (components.responses.NotFound) and a method not listed for a path 405 (MethodNotAllowed). A 429 ' +
  'for a key’s limits carries retry-after (seconds) and retry-after-ms. The operator’s console (/console…), a page ' +
  'with its own sign-in, is not described here.';

export const OPENAPI_DOCUMENT: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'systemone-judge', version: '1.0.0', description: DESCRIPTION },
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  tags: [
    { name: 'api', description: 'The System One API.' },
    { name: 'operations', description: 'Health, metrics and this document.' },
    { name: 'playground', description: 'The playground page and the routes it uses (no key).' },
  ],
  security: [{ apiKey: [] }],
  paths: { ...API_PATHS, ...OPERATIONS_PATHS, ...PLAYGROUND_PATHS },
  components: {
    schemas: { ...QUESTION_SCHEMAS, ...ANSWER_SCHEMAS, ...OTHER_SCHEMAS, ...ERROR_SCHEMAS },
    headers: HEADERS,
    responses: RESPONSES,
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An env key (JUDGE_API_KEYS / apiKeys) or a key made by `systemone-judge keys create`.',
      },
      operatorKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An env key (JUDGE_API_KEYS / apiKeys) only: the operator’s.',
      },
    },
  },
};
