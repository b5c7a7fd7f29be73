// The webhook (POST /webhook/agent) on the channel contract: its JSON body in ({message | voice, user_id, reply_to,
// …}; a voice body is transcribed by the workflow's Voice to Text first; no files), the caller's user_id as the
// identity, the reply whole as plain text (Markdown is the caller's to render), a question as data (needs_input {id,
// kind, question}), no "typing…", and proactive messages POSTed to the user's callback URL through the outbound
// guard, signed with HMAC-SHA256 (a 2xx is the delivery receipt).
import { createHmac, timingSafeEqual } from 'node:crypto';

import { isHttpResult, MAX_MESSAGE_LENGTH, parseAgentRequest } from '../channel/webhook-request';
import type { OutboxMessage, SendOutcome } from '../delivery/outbox';
import { type OutboundGuard, OutboundRefusedError } from '../outbound/guard';
import { messageText, type ChannelAdapter, type InboundResult, type OutboundMessage } from './contract';

export const SIGNATURE_HEADER = 'X-Signature';

/** `sha256=<hex HMAC-SHA256 of the exact body bytes>` under `secret`. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `signature` (the X-Signature header) is `body`'s under `secret`; constant-time. */
export function verifySignature(secret: string, body: string | Buffer, signature: string | null | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(signature.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The JSON a callback receives: idempotent by `id`. */
export function callbackBody(message: OutboxMessage): string {
  return JSON.stringify({
    id: message.id,
    user_id: message.apiUserId,
    kind: message.kind,
    text: message.text,
    created_at: message.createdAt,
    data: message.data,
  });
}

export interface CallbackConfig {
  guard: OutboundGuard;
  /** The callback signing secret (the Assistant Callback Signing credential). */
  signingSecret?: string | null;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** POSTs an outbox message to a callback URL; any 2xx is delivered, anything else is retried (a refused URL fails). */
export async function postCallback(
  message: OutboxMessage,
  target: string | null,
  config: CallbackConfig,
): Promise<SendOutcome> {
  if (!config.signingSecret) {
    return {
      status: 'retry',
      error: 'no callback signing secret is configured (the Assistant Callback Signing credential)',
    };
  }
  if (!target) return { status: 'failed', error: 'the message has no callback URL' };
  const body = callbackBody(message);
  const timeoutMs = config.timeoutMs ?? 15_000;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await config.guard.fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signBody(config.signingSecret, body),
        'X-Delivery-Id': String(message.id),
        'X-Delivery-Attempt': String(message.attempts),
      },
      body,
      signal,
    });
    const text = (await response.text().catch(() => '')).slice(0, 200);
    if (response.ok) return { status: 'delivered' };
    return { status: 'retry', error: `the callback answered HTTP ${response.status}${text ? `: ${text}` : ''}` };
  } catch (error) {
    if (error instanceof OutboundRefusedError) {
      return { status: 'failed', error: `callback_url refused: ${error.message}` };
    }
    if (signal.aborted) return { status: 'retry', error: `the callback did not answer within ${timeoutMs} ms` };
    return { status: 'retry', error: errorText(error) };
  }
}

export function parseWebhookBody(body: unknown): InboundResult {
  const parsed = parseAgentRequest(body);
  if (isHttpResult(parsed)) {
    const { error } = parsed.body as { error: { code: string; message: string; field?: string } };
    return { kind: 'refused', refusal: { statusCode: parsed.statusCode, ...error } };
  }
  const metadata = parsed.callbackUrl ? { ...parsed.metadata, callback_url: parsed.callbackUrl } : parsed.metadata;
  return {
    kind: 'message',
    message: {
      channel: 'webhook',
      externalId: parsed.externalId,
      sessionId: parsed.sessionId,
      text: parsed.message,
      ...(parsed.replyTo ? { replyTo: parsed.replyTo } : {}),
      metadata,
    },
  };
}

export function renderWebhook(message: OutboundMessage) {
  return [{ text: messageText(message), format: 'plain' as const }];
}

/** The webhook channel; `callback` sends proactive messages (an outbox row each, idempotent by its id). */
export function webhookChannel(callback?: CallbackConfig): ChannelAdapter {
  return {
    name: 'webhook',
    limits: {
      maxPartLength: MAX_MESSAGE_LENGTH,
      maxInboundLength: MAX_MESSAGE_LENGTH,
      formatting: 'plain',
      buttons: 'data',
      typing: 'none',
      delivery: 'push',
    },
    parseInbound: parseWebhookBody,
    identityOf: (externalId) => ({ channel: 'api', externalId }),
    render: renderWebhook,
    async send(target, outbound) {
      if (!callback) return { status: 'retry', error: 'the webhook channel has no callback configuration' };
      if (!outbound.outbox)
        return { status: 'failed', error: 'a callback carries an outbox message, and none was given' };
      return postCallback({ ...outbound.outbox, text: messageText(outbound) }, target, callback);
    },
  };
}
