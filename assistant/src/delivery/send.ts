// Sending one outbox message on its channel, and telling apart what was not sent (retry), what never will be
// (failed) and what may have been (unknown). Telegram goes to the Bot API base URL the operator configured; a
// callback goes through the outbound guard (checked again on every send), signed with HMAC-SHA256.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

import { telegramMessages } from '../channel/telegram-text';
import { type OutboundGuard, OutboundRefusedError } from '../outbound/guard';
import type { OutboxMessage, SendOutcome } from './outbox';

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

export interface SendOptions {
  guard: OutboundGuard;
  /** Bot token and Bot API base URL (https://api.telegram.org unless the operator changed it). */
  telegram?: { token: string; baseUrl: string } | null;
  /** The callback signing secret. */
  signingSecret?: string | null;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function sendMessage(message: OutboxMessage, options: SendOptions): Promise<SendOutcome> {
  if (message.channel === 'telegram') return sendTelegram(message, options);
  if (message.channel === 'webhook') return postCallback(message, options);
  return { status: 'failed', error: `a ${message.channel} message is not sent; it waits in the outbox to be pulled` };
}

async function postCallback(message: OutboxMessage, options: SendOptions): Promise<SendOutcome> {
  if (!options.signingSecret) {
    return {
      status: 'retry',
      error: 'no callback signing secret is configured (the Assistant Callback Signing credential)',
    };
  }
  if (!message.target) return { status: 'failed', error: 'the message has no callback URL' };
  const body = callbackBody(message);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  try {
    const response = await options.guard.fetch(message.target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signBody(options.signingSecret, body),
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
    if (error instanceof OutboundRefusedError)
      return { status: 'failed', error: `callback_url refused: ${error.message}` };
    if (signal.aborted)
      return { status: 'retry', error: `the callback did not answer within ${options.timeoutMs ?? 15_000} ms` };
    return { status: 'retry', error: errorText(error) };
  }
}

interface RawResponse {
  status: number;
  body: string;
}

/** One POST that knows whether the request left: `sent` is true once the body was fully written. */
function postJson(
  url: URL,
  payload: unknown,
  timeoutMs: number,
): Promise<{ ok: true; response: RawResponse } | { ok: false; sent: boolean; error: string }> {
  return new Promise((resolve) => {
    const body = JSON.stringify(payload);
    const transport = url.protocol === 'https:' ? https : http;
    let sent = false;
    const request = transport.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ ok: true, response: { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() } }),
        );
        response.on('error', (error) => resolve({ ok: false, sent: true, error: error.message }));
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('finish', () => (sent = true));
    request.on('error', (error) => resolve({ ok: false, sent, error: error.message }));
    request.end(body);
  });
}

async function sendTelegram(message: OutboxMessage, options: SendOptions): Promise<SendOutcome> {
  if (!options.telegram?.token) {
    return { status: 'retry', error: 'no Telegram bot token is configured (the Assistant Telegram Bot credential)' };
  }
  if (!message.target) return { status: 'failed', error: 'the message has no Telegram chat id' };
  const base = options.telegram.baseUrl.replace(/\/+$/, '') || 'https://api.telegram.org';
  const url = new URL(`${base}/bot${options.telegram.token}/sendMessage`);
  const ids: string[] = [];
  for (const part of telegramMessages(message.text)) {
    const result = await postJson(
      url,
      { chat_id: message.target, text: part.text, parse_mode: part.parseMode },
      options.timeoutMs ?? 15_000,
    );
    // Never echo the URL: it holds the bot token.
    const partial = ids.length > 0 ? ` (after ${ids.length} part(s) went out: ${ids.join(',')})` : '';
    if (!result.ok) {
      if (result.sent || ids.length > 0) {
        return { status: 'unknown', error: `Telegram did not confirm the send: ${result.error}${partial}` };
      }
      return { status: 'retry', error: `Telegram could not be reached: ${result.error}` };
    }
    let answer: { ok?: boolean; description?: string; result?: { message_id?: number } } = {};
    try {
      answer = JSON.parse(result.response.body);
    } catch {
      answer = {};
    }
    const status = result.response.status;
    if (status === 200 && answer.ok && answer.result?.message_id !== undefined) {
      ids.push(String(answer.result.message_id));
      continue;
    }
    const why = `Telegram answered HTTP ${status}: ${answer.description ?? result.response.body.slice(0, 200)}`;
    if (ids.length > 0) return { status: 'unknown', error: `${why}${partial}` };
    if (status === 429 || status >= 500) return { status: 'retry', error: why };
    return { status: 'failed', error: why };
  }
  return { status: 'delivered', channelMessageId: ids.join(',') };
}
