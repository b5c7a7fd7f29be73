// The session endpoints' request bodies (protocol.ts), checked: a missing, bad or unknown field is answered
// invalid_request naming it. The user id is taken in any case and used in lower case (it names the profile).
import type {
  SessionClickRequest,
  SessionFillRequest,
  SessionOpenRequest,
  SessionRefRequest,
  SessionSelectRequest,
  SessionStepRequest,
} from './protocol';
import { ServiceError } from './service-error';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The longest value a fill types. */
export const MAX_FILL_CHARS = 10_000;
const MAX_SITES = 20;

const invalid = (field: string, message: string) => new ServiceError('invalid_request', message, field);

/** The body as an object with only the `allowed` fields. */
function fields(body: unknown, allowed: string[]): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid('body', `the body must be a JSON object {${allowed.join(', ')}}`);
  }
  const unknown = Object.keys(body).find((name) => !allowed.includes(name));
  if (unknown !== undefined) throw invalid(unknown, `unknown field "${unknown}"`);
  return body as Record<string, unknown>;
}

function user(value: unknown): string {
  if (typeof value !== 'string' || !UUID.test(value.trim())) {
    throw invalid('user', "user is required: the assistant's user id (a UUID)");
  }
  return value.trim().toLowerCase();
}

function text(value: unknown, field: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, `${field} is required: ${what}`);
  return value.trim();
}

function ref(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid('ref', 'ref must be the number of an element in the last snapshot');
  }
  return value;
}

/** The origins a secret may be typed into, as `scheme://host[:port]`. */
function sites(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SITES) {
    throw invalid('sites', `sites must list 1 to ${MAX_SITES} origins (e.g. https://example.com)`);
  }
  return value.map((site) => {
    let url: URL | undefined;
    try {
      url = typeof site === 'string' ? new URL(site) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw invalid('sites', `${JSON.stringify(site)} is not an http(s) origin (e.g. https://example.com)`);
    }
    return url.origin;
  });
}

export function parseStep(body: unknown): SessionStepRequest {
  return { user: user(fields(body, ['user']).user) };
}

export function parseOpen(body: unknown): SessionOpenRequest {
  const b = fields(body, ['user', 'url']);
  return { user: user(b.user), url: text(b.url, 'url', 'the page to open') };
}

export function parseRef(body: unknown): SessionRefRequest {
  const b = fields(body, ['user', 'ref']);
  return { user: user(b.user), ref: ref(b.ref) };
}

export function parseClick(body: unknown): SessionClickRequest {
  const b = fields(body, ['user', 'ref', 'expectForm']);
  const request = { user: user(b.user), ref: ref(b.ref) };
  if (b.expectForm === undefined) return request;
  if (typeof b.expectForm !== 'string') {
    throw invalid('expectForm', 'expectForm must be the approved form ("POST https://…"), or "" for none');
  }
  return { ...request, expectForm: b.expectForm.trim() };
}

export function parseSelect(body: unknown): SessionSelectRequest {
  const b = fields(body, ['user', 'ref', 'option']);
  return { user: user(b.user), ref: ref(b.ref), option: text(b.option, 'option', "the option's label or value") };
}

export function parseFill(body: unknown): SessionFillRequest & { secret: boolean } {
  const b = fields(body, ['user', 'ref', 'value', 'secret', 'sites']);
  const request = { user: user(b.user), ref: ref(b.ref) };
  if (typeof b.value !== 'string') throw invalid('value', 'value is required: the text to type ("" empties the field)');
  if (b.value.length > MAX_FILL_CHARS) throw invalid('value', `value is longer than ${MAX_FILL_CHARS} characters`);
  if (b.secret !== undefined && typeof b.secret !== 'boolean') throw invalid('secret', 'secret must be true or false');
  const secret = b.secret === true;
  if (b.sites === undefined) return { ...request, value: b.value, secret };
  if (!secret) throw invalid('sites', 'sites goes with secret: true (the sites a secret may be typed into)');
  return { ...request, value: b.value, secret, sites: sites(b.sites) };
}
