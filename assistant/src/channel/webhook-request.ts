// Validates the body of POST /webhook/agent: {message, user_id, session_id?, metadata?}.
import { MAX_METADATA_BYTES } from '../turns/turns';
import { httpError, type HttpResult } from './http-result';

export const MAX_MESSAGE_LENGTH = 1_000_000;
export const MAX_ID_LENGTH = 200;
export const DEFAULT_SESSION_ID = 'default';

export interface AgentRequest {
  channel: 'api';
  externalId: string;
  message: string;
  sessionId: string;
  metadata: Record<string, unknown>;
  /** The id of the question this message answers (a pending question), when given. */
  replyTo?: string;
}

const KNOWN_FIELDS = new Set(['message', 'user_id', 'session_id', 'metadata', 'reply_to']);
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

const invalid = (field: string, message: string): HttpResult =>
  httpError(400, 'invalid_request', `${field}: ${message}`, field);

function checkId(value: unknown, field: string): HttpResult | string {
  if (typeof value !== 'string' || value.trim() === '') return invalid(field, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) return invalid(field, `must be at most ${MAX_ID_LENGTH} characters`);
  if (CONTROL_CHARS.test(value)) return invalid(field, 'must not contain control characters');
  return value.trim();
}

/** Returns the request, or the 400 answer naming the first bad field. The message is kept verbatim. */
export function parseAgentRequest(body: unknown): AgentRequest | HttpResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid('body', 'must be a JSON object like {"message": "...", "user_id": "..."} sent as application/json');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) {
    return invalid(unknown, 'is not a known field (use message, user_id, session_id, metadata, reply_to)');
  }

  const { message } = fields;
  if (typeof message !== 'string' || message.trim() === '') return invalid('message', 'must be a non-empty string');
  if (message.length > MAX_MESSAGE_LENGTH)
    return invalid('message', `must be at most ${MAX_MESSAGE_LENGTH} characters`);

  const userId = checkId(fields.user_id, 'user_id');
  if (typeof userId !== 'string') return userId;

  let sessionId = DEFAULT_SESSION_ID;
  if (fields.session_id !== undefined && fields.session_id !== null) {
    const checked = checkId(fields.session_id, 'session_id');
    if (typeof checked !== 'string') return checked;
    sessionId = checked;
  }

  const metadata = fields.metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return invalid('metadata', 'must be a JSON object');
  }
  if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
    return httpError(
      413,
      'metadata_too_large',
      `metadata: must be at most ${MAX_METADATA_BYTES / 1000} kB of JSON`,
      'metadata',
    );
  }

  const request: AgentRequest = {
    channel: 'api',
    externalId: userId,
    message,
    sessionId,
    metadata: metadata as Record<string, unknown>,
  };
  if (fields.reply_to !== undefined && fields.reply_to !== null) {
    const replyTo = checkId(fields.reply_to, 'reply_to');
    if (typeof replyTo !== 'string') return replyTo;
    request.replyTo = replyTo;
  }
  return request;
}

export function isHttpResult(value: AgentRequest | HttpResult): value is HttpResult {
  return 'statusCode' in value;
}
