// Validates the body of POST /webhook/agent: {message | voice, user_id, session_id?, metadata?, reply_to?, …}.
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
  /** A voice note to transcribe (then `message` is empty until it is): base64 audio and its type. */
  voice?: WebhookVoice;
}

export interface WebhookVoice {
  /** The audio, base64 (standard alphabet, padded). */
  data: string;
  /** The base type without parameters, e.g. audio/webm. */
  mimeType: string;
}

/** A voice note sent to the webhook: 3 MB of audio (minutes of Opus), 4 MB as base64, within the trigger's limit. */
export const MAX_WEBHOOK_VOICE_BYTES = 3_000_000;
/** What an OpenAI-compatible transcription endpoint takes; parameters such as `;codecs=opus` are allowed. */
export const VOICE_MIME_TYPES = ['audio/webm', 'audio/ogg', 'audio/mpeg', 'audio/mp4', 'audio/wav', 'audio/flac'];
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

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

const KNOWN_FIELDS = new Set(['message', 'voice', 'user_id', 'session_id', 'metadata', 'reply_to', 'callback_url']);
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

/** `voice: {data, mime_type}`: base64 audio of an accepted type, at most MAX_WEBHOOK_VOICE_BYTES decoded. */
function checkVoice(value: unknown): WebhookVoice | HttpResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('voice', 'must be an object like {"data": "<base64 audio>", "mime_type": "audio/webm"}');
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => key !== 'data' && key !== 'mime_type');
  if (unknown !== undefined) return invalid(`voice.${unknown}`, 'is not a known field (use data, mime_type)');
  const mimeType = typeof fields.mime_type === 'string' ? fields.mime_type.split(';')[0].trim().toLowerCase() : '';
  if (!VOICE_MIME_TYPES.includes(mimeType)) {
    return invalid('voice.mime_type', `must be one of ${VOICE_MIME_TYPES.join(', ')} (parameters allowed)`);
  }
  const { data } = fields;
  if (typeof data !== 'string' || data === '') return invalid('voice.data', 'must be a non-empty base64 string');
  if (data.length > Math.ceil(MAX_WEBHOOK_VOICE_BYTES / 3) * 4) {
    return httpError(
      413,
      'voice_too_large',
      `voice.data: must be at most ${MAX_WEBHOOK_VOICE_BYTES / 1_000_000} MB of audio`,
      'voice.data',
    );
  }
  if (data.length % 4 !== 0 || !BASE64.test(data)) {
    return invalid('voice.data', 'must be base64 (A-Z, a-z, 0-9, +, /, padded with =)');
  }
  return { data, mimeType };
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
      'is not a known field (use message or voice, user_id, session_id, metadata, reply_to, callback_url)',
    );
  }

  let voice: WebhookVoice | undefined;
  if (fields.voice !== undefined && fields.voice !== null) {
    if (fields.message !== undefined && fields.message !== null) {
      return invalid('voice', 'send either message or voice, not both');
    }
    const checked = checkVoice(fields.voice);
    if ('statusCode' in checked) return checked;
    voice = checked;
  }
  const message = voice ? '' : fields.message;
  if (!voice && (typeof message !== 'string' || message.trim() === '')) {
    return invalid('message', 'must be a non-empty string (or send a voice note as voice)');
  }
  if (typeof message !== 'string') return invalid('message', 'must be a non-empty string');
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
  if (voice) request.voice = voice;
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
