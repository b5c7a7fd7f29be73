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
  /** Where this user's proactive messages are POSTed from now on (checked by the outbound guard before use). */
  callbackUrl?: string;
}

/** GET /webhook/agent/outbox?user_id=…&after=…&limit=… */
export interface OutboxRequest {
  externalId: string;
  after: string;
  limit: string;
}

export interface TurnRequest {
  externalId: string;
  turnId: string;
}

const KNOWN_FIELDS = new Set(['message', 'user_id', 'session_id', 'metadata', 'reply_to', 'callback_url']);
export const MAX_CALLBACK_URL_LENGTH = 2000;
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
    return invalid(
      unknown,
      'is not a known field (use message, user_id, session_id, metadata, reply_to, callback_url)',
    );
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
  if (fields.callback_url !== undefined && fields.callback_url !== null) {
    const url = fields.callback_url;
    if (typeof url !== 'string' || url.length > MAX_CALLBACK_URL_LENGTH || !/^https?:\/\/[^\s]+$/i.test(url.trim())) {
      return invalid('callback_url', `must be an http(s) URL of at most ${MAX_CALLBACK_URL_LENGTH} characters`);
    }
    request.callbackUrl = url.trim();
  }
  return request;
}

/** Validates the query of GET /webhook/agent/outbox; the 400 answer names the first bad parameter. */
export function parseOutboxRequest(query: unknown): OutboxRequest | HttpResult {
  const fields = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !['user_id', 'after', 'limit'].includes(key));
  if (unknown !== undefined) return invalid(unknown, 'is not a known parameter (use user_id, after, limit)');
  const userId = checkId(fields.user_id, 'user_id');
  if (typeof userId !== 'string') return userId;
  const after = fields.after ?? '0';
  if (typeof after !== 'string' || !/^\d{1,18}$/.test(after)) {
    return invalid('after', 'must be an outbox message id (a whole number of 0 or more)');
  }
  const limit = fields.limit ?? '100';
  if (typeof limit !== 'string' || !/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 500) {
    return invalid('limit', 'must be a whole number from 1 to 500');
  }
  return { externalId: userId, after, limit };
}

/** Validates the query of GET /webhook/agent/turn; the 400 answer names the first bad parameter. */
export function parseTurnRequest(query: unknown): TurnRequest | HttpResult {
  const fields = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !['user_id', 'turn_id'].includes(key));
  if (unknown !== undefined) return invalid(unknown, 'is not a known parameter (use user_id, turn_id)');
  const userId = checkId(fields.user_id, 'user_id');
  if (typeof userId !== 'string') return userId;
  const turnId = fields.turn_id;
  if (typeof turnId !== 'string' || !/^[1-9]\d{0,17}$/.test(turnId)) {
    return invalid('turn_id', 'must be the turn_id a POST /webhook/agent answered with (a whole number from 1)');
  }
  return { externalId: userId, turnId };
}

export function isHttpResult(value: AgentRequest | OutboxRequest | TurnRequest | HttpResult): value is HttpResult {
  return 'statusCode' in value;
}
