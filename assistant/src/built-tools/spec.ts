// The spec of a tool the assistant builds: what the model fills in (name, purpose, typed inputs with a sample each,
// method, URL template, the name of an n8n credential, response fields). It is checked here before anything is
// created: names and types, placeholders that are inputs, a fixed host, and no literal secret anywhere (a key belongs
// in an n8n credential, named by the spec). The URL itself is checked by the outbound guard separately.
import { AssistantInputError } from '../errors';

export const TOOL_INPUT_TYPES = ['string', 'number', 'boolean'] as const;
export type ToolInputType = (typeof TOOL_INPUT_TYPES)[number];
export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ToolMethod = (typeof TOOL_METHODS)[number];

export interface ToolInput {
  name: string;
  type: ToolInputType;
  description: string;
  /** The value the test execution uses. */
  sample: string | number | boolean;
}

export interface ToolResponseField {
  /** The output field's name. */
  name: string;
  /** Where it is in the JSON response, dotted (`main.temp`, `items.0.title`). */
  path: string;
}

export interface ToolSpec {
  /** snake_case; run_tool calls it by this name. */
  name: string;
  purpose: string;
  inputs: ToolInput[];
  method: ToolMethod;
  /** http(s) URL; `{input}` placeholders in the path and query only. */
  url: string;
  /** The name of the n8n credential that authenticates the request, or null for a public API. */
  credential: string | null;
  /** For POST/PUT/PATCH: a flat JSON body; values may be `{input}` placeholders. */
  body: Record<string, string> | null;
  responseFields: ToolResponseField[];
}

const NAME = /^[a-z][a-z0-9_]{2,39}$/;
const FIELD = /^[a-z][a-zA-Z0-9_]{0,39}$/;
const PATH = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+){0,9}$/;
const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

/** Names that carry secrets when they hold a literal value. */
const SECRET_NAME =
  /(^|[_-])(api[_-]?key|apikey|key|token|secret|password|passwd|pwd|auth|authorization|signature|sig|session|access[_-]?token|client[_-]?secret)$/i;
/** Values that look like a secret whatever they are called. */
const SECRET_VALUES: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{16,}/, 'an OpenAI-style key (sk-…)'],
  [/\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{16,}/, 'a GitHub token'],
  [/\bxox[abpr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, 'a JSON Web Token'],
  [/\bBearer\s+[A-Za-z0-9._~+/-]{8,}/i, 'a bearer token'],
  [/\b[0-9]{8,10}:[A-Za-z0-9_-]{35}\b/, 'a Telegram bot token'],
];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new AssistantInputError(field, 'is missing');
  const trimmed = value.trim();
  if (trimmed.length > max) throw new AssistantInputError(field, `must be at most ${max} characters`);
  return trimmed;
}

/** The first literal secret in a value, described; undefined when there is none. */
export function literalSecret(value: string): string | undefined {
  for (const [pattern, what] of SECRET_VALUES) if (pattern.test(value)) return what;
  return undefined;
}

function refuseSecret(field: string, value: string): void {
  const found = literalSecret(value);
  if (found) {
    throw new AssistantInputError(
      field,
      `contains ${found}: never put a secret in a tool; store it in an n8n credential and name that credential`,
    );
  }
}

function inputs(value: unknown): ToolInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new AssistantInputError('inputs', 'must be a list of {name, type, description, sample}');
  if (value.length > 10) throw new AssistantInputError('inputs', 'must be at most 10');
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `inputs[${index}]`;
    if (!isRecord(entry)) throw new AssistantInputError(at, 'must be {name, type, description, sample}');
    const name = text(entry.name, `${at}.name`, 40);
    if (!FIELD.test(name)) throw new AssistantInputError(`${at}.name`, 'must be a name like city or max_results');
    if (seen.has(name)) throw new AssistantInputError(`${at}.name`, `"${name}" is used twice`);
    seen.add(name);
    const type = entry.type ?? 'string';
    if (typeof type !== 'string' || !(TOOL_INPUT_TYPES as readonly string[]).includes(type)) {
      throw new AssistantInputError(`${at}.type`, `must be one of ${TOOL_INPUT_TYPES.join(', ')}`);
    }
    const description = text(entry.description, `${at}.description`, 200);
    const sample = entry.sample;
    const sampleOk =
      (type === 'string' && typeof sample === 'string' && sample.trim() !== '' && sample.length <= 200) ||
      (type === 'number' && typeof sample === 'number' && Number.isFinite(sample)) ||
      (type === 'boolean' && typeof sample === 'boolean');
    if (!sampleOk) {
      throw new AssistantInputError(`${at}.sample`, `must be a ${type} the test execution can use`);
    }
    if (typeof sample === 'string') refuseSecret(`${at}.sample`, sample);
    return { name, type: type as ToolInputType, description, sample: sample as string | number | boolean };
  });
}

function url(value: unknown, names: Set<string>): string {
  const template = text(value, 'url', 2000);
  refuseSecret('url', template);
  const used = [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);
  for (const name of used) {
    if (!names.has(name)) throw new AssistantInputError('url', `{${name}} is not one of the inputs`);
  }
  // Placeholders filled with a harmless value, to see the URL's fixed parts.
  let parsed: URL;
  try {
    parsed = new URL(template.replace(PLACEHOLDER, 'x'));
  } catch {
    throw new AssistantInputError(
      'url',
      'must be a full http(s) URL, e.g. https://api.example.com/weather?city={city}',
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new AssistantInputError('url', 'must be an http or https URL');
  }
  if (parsed.username || parsed.password) {
    throw new AssistantInputError('url', 'must not contain a user or password: name an n8n credential instead');
  }
  if (/[{}]/.test(template.replace(PLACEHOLDER, ''))) {
    throw new AssistantInputError('url', 'has a brace that is not an {input} placeholder');
  }
  const authority = template.slice(template.indexOf('//') + 2).split(/[/?#]/)[0];
  if (/[{}]/.test(authority)) throw new AssistantInputError('url', 'its host must be fixed, not an input');
  for (const [key, param] of new URL(template).searchParams) {
    if (SECRET_NAME.test(key) && !/^\{[a-zA-Z0-9_]+\}$/.test(param)) {
      throw new AssistantInputError(
        'url',
        `its query parameter "${key}" holds a literal secret: store it in an n8n credential (e.g. Query Auth) and name that credential`,
      );
    }
  }
  return template;
}

function body(value: unknown, method: ToolMethod, names: Set<string>): Record<string, string> | null {
  if (value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0)) return null;
  if (method === 'GET' || method === 'DELETE') throw new AssistantInputError('body', `a ${method} request has no body`);
  if (!isRecord(value)) throw new AssistantInputError('body', 'must be a flat JSON object of strings');
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value)) {
    if (!FIELD.test(key)) throw new AssistantInputError(`body.${key}`, 'must be a field name like city');
    if (typeof raw !== 'string') throw new AssistantInputError(`body.${key}`, 'must be a string or an {input}');
    refuseSecret(`body.${key}`, raw);
    if (SECRET_NAME.test(key) && !/^\{[a-zA-Z0-9_]+\}$/.test(raw.trim())) {
      throw new AssistantInputError(`body.${key}`, 'holds a literal secret: store it in an n8n credential and name it');
    }
    for (const match of raw.matchAll(PLACEHOLDER)) {
      if (!names.has(match[1])) throw new AssistantInputError(`body.${key}`, `{${match[1]}} is not one of the inputs`);
    }
    out[key] = raw;
  }
  return out;
}

function responseFields(value: unknown): ToolResponseField[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new AssistantInputError('responseFields', 'must list at least one {name, path} of the JSON response');
  }
  if (value.length > 20) throw new AssistantInputError('responseFields', 'must be at most 20');
  return value.map((entry, index) => {
    const at = `responseFields[${index}]`;
    if (!isRecord(entry)) throw new AssistantInputError(at, 'must be {name, path}');
    const name = text(entry.name, `${at}.name`, 40);
    if (!FIELD.test(name)) throw new AssistantInputError(`${at}.name`, 'must be a name like temperature');
    const path = text(entry.path, `${at}.path`, 200);
    if (!PATH.test(path)) throw new AssistantInputError(`${at}.path`, 'must be a dotted path like main.temp');
    return { name, path };
  });
}

/** Checks a spec the model filled; every problem names its field. */
export function validateToolSpec(input: unknown, reservedNames: readonly string[] = []): ToolSpec {
  if (!isRecord(input)) throw new AssistantInputError('spec', 'must be an object');
  const name = text(input.name, 'name', 40);
  if (!NAME.test(name))
    throw new AssistantInputError('name', 'must be snake_case of 3 to 40 characters, e.g. city_weather');
  if (reservedNames.includes(name))
    throw new AssistantInputError('name', `"${name}" is already a tool of the assistant`);
  const purpose = text(input.purpose, 'purpose', 300);
  refuseSecret('purpose', purpose);
  const toolInputs = inputs(input.inputs);
  const names = new Set(toolInputs.map((entry) => entry.name));
  const method = typeof input.method === 'string' ? input.method.trim().toUpperCase() : 'GET';
  if (!(TOOL_METHODS as readonly string[]).includes(method)) {
    throw new AssistantInputError('method', `must be one of ${TOOL_METHODS.join(', ')}`);
  }
  const credential =
    input.credential === undefined || input.credential === null || input.credential === ''
      ? null
      : text(input.credential, 'credential', 128);
  if (credential) refuseSecret('credential', credential);
  return {
    name,
    purpose,
    inputs: toolInputs,
    method: method as ToolMethod,
    url: url(input.url, names),
    credential,
    body: body(input.body, method as ToolMethod, names),
    responseFields: responseFields(input.responseFields),
  };
}

/** The URL with the samples filled in: what the guard checks before the draft is created. */
export function sampleUrl(spec: ToolSpec): string {
  const samples = new Map(spec.inputs.map((entry) => [entry.name, String(entry.sample)]));
  return spec.url.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(samples.get(name) ?? ''));
}
