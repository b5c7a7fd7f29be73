// What the trigger decides before any execution exists: the key, the size, the body.
import {
  checkApiKey,
  httpError,
  isHttpResult,
  parseAgentRequest,
  parseOutboxRequest,
  parseReceiptsRequest,
  parseTurnRequest,
  type AgentRequest,
  type OutboxRequest,
  type ReceiptsRequest,
  type TurnRequest,
  type HttpResult,
} from 'assistant-core';

/** A message of up to 1,000,000 characters (4 bytes each at most) and 100 kB of metadata, with room for JSON. */
export const MAX_BODY_BYTES = 4_200_000;
/** A receipt: at most 500 ids and a user_id, with room for JSON. */
export const MAX_RECEIPTS_BYTES = 64_000;

export interface IncomingCall {
  headers: Record<string, unknown>;
  body: unknown;
}

/** The accepted request, or the answer to send instead (401/403 key, 413 size, 400 body). */
export function admit(call: IncomingCall, credential: { name: string; value: string }): AgentRequest | HttpResult {
  const refused = checkApiKey(call.headers, credential);
  if (refused) return refused;
  const declared = Number(call.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    return httpError(413, 'body_too_large', `body: must be at most ${MAX_BODY_BYTES} bytes`, 'body');
  }
  return parseAgentRequest(call.body);
}

/** GET outbox: the key, then the query. */
export function admitOutbox(
  call: { headers: Record<string, unknown>; query: unknown },
  credential: { name: string; value: string },
): OutboxRequest | HttpResult {
  return checkApiKey(call.headers, credential) ?? parseOutboxRequest(call.query);
}

/** POST receipts (a pulling client showed these messages): the key, the size, then the body. */
export function admitReceipts(
  call: IncomingCall,
  credential: { name: string; value: string },
): ReceiptsRequest | HttpResult {
  const refused = checkApiKey(call.headers, credential);
  if (refused) return refused;
  const declared = Number(call.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_RECEIPTS_BYTES) {
    return httpError(413, 'body_too_large', `body: must be at most ${MAX_RECEIPTS_BYTES} bytes`, 'body');
  }
  return parseReceiptsRequest(call.body);
}

/** GET turn: the key, then the query. */
export function admitTurn(
  call: { headers: Record<string, unknown>; query: unknown },
  credential: { name: string; value: string },
): TurnRequest | HttpResult {
  return checkApiKey(call.headers, credential) ?? parseTurnRequest(call.query);
}

/** A callback_url the outbound guard refuses: the 400 answer naming the field. */
export async function refusedCallbackUrl(
  url: string | undefined,
  check: (url: string) => Promise<{ allowed: boolean; reason?: string }>,
): Promise<HttpResult | null> {
  if (url === undefined) return null;
  const decision = await check(url);
  if (decision.allowed) return null;
  return httpError(400, 'invalid_request', `callback_url: ${decision.reason ?? 'refused'}`, 'callback_url');
}

export { isHttpResult };
