// Slack on the channel contract (docs.slack.dev): a DM or a mention in (an Events API event_callback, as Socket Mode
// and the HTTP Events API both deliver it), a button click in (a block_actions payload: the answer to a question), the
// Slack user id as the identity, threads as sessions (a message in a thread is that thread's; a DM's top level is the
// DM's), replies as mrkdwn (&, < and > escaped, so no <!channel>, <@user> or link can be injected; the model's
// **bold**, headings and http(s) links kept) in parts of at most 3,000 characters (a section block's limit; Slack
// refuses text over 40,000 with msg_too_long), an approval's Yes/No as Block Kit buttons, chat.postMessage's outcome
// as the delivery receipt. Slack shows no "typing…" for a bot.
import http from 'node:http';
import https from 'node:https';
import { createHmac, timingSafeEqual } from 'node:crypto';

import { splitText } from '../channel/telegram-text';
import type { SendOutcome } from '../delivery/outbox';
import {
  messageText,
  questionControls,
  questionControlsAsText,
  type ChannelAdapter,
  type InboundFile,
  type InboundResult,
  type OutboundMessage,
  type RenderedPart,
} from './contract';

/** A section block's text limit: every part fits one, so the last can carry its buttons. */
export const SLACK_PART_LIMIT = 3_000;
/** chat.postMessage refuses longer text (msg_too_long). */
export const SLACK_TEXT_LIMIT = 40_000;
/** A Slack user id: U… (or W… in an Enterprise Grid). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,30}$/;
const SLACK_CHANNEL_ID = /^[CDG][A-Z0-9]{2,30}$/;
const SLACK_TS = /^\d{1,12}(\.\d{1,8})?$/;
/** How old a signed Events API request may be (Slack's docs: five minutes, against replays). */
export const SLACK_SIGNATURE_MAX_AGE_SECONDS = 5 * 60;

export interface SlackBotConfig {
  /** https://slack.com/api, or the credential's base URL. */
  apiUrl: string;
  /** The bot token (xoxb-…). */
  botToken: string;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

const refused = (field: string, message: string): InboundResult => ({
  kind: 'refused',
  refusal: { statusCode: 400, code: 'invalid_request', message: `${field}: ${message}`, field },
});

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The session of a message: its thread's, else the conversation's. */
export function slackSessionId(channel: string, threadTs?: string): string {
  return threadTs ? `slack:${channel}:${threadTs}` : `slack:${channel}`;
}

/** Where a reply goes: "<channel>" or "<channel>/<thread ts>" (the outbox's target and the workflow's). */
export function slackTarget(channel: string, threadTs?: string): string {
  return threadTs ? `${channel}/${threadTs}` : channel;
}

function fileOf(files: unknown): InboundFile | undefined {
  const first = Array.isArray(files) ? (files[0] as Record<string, unknown> | undefined) : undefined;
  if (!first || !str(first.id)) return undefined;
  return {
    fileId: first.id as string,
    mimeType: str(first.mimetype) ?? 'application/octet-stream',
    ...(str(first.name) ? { fileName: first.name as string } : {}),
    ...(typeof first.size === 'number' ? { size: first.size } : {}),
  };
}

/** A button's value: which question it answers and with what. */
export function slackButtonValue(questionId: string, answer: string): string {
  return JSON.stringify({ question_id: questionId, answer });
}

function parseBlockActions(payload: Record<string, unknown>): InboundResult {
  const user = str((payload.user as Record<string, unknown> | undefined)?.id);
  if (!user || !SLACK_USER_ID.test(user)) return refused('user.id', 'must be a Slack user id');
  const container = (payload.container as Record<string, unknown> | undefined) ?? {};
  const channel = str(container.channel_id) ?? str((payload.channel as Record<string, unknown> | undefined)?.id);
  if (!channel || !SLACK_CHANNEL_ID.test(channel)) return refused('container.channel_id', 'must be a Slack channel id');
  const action = Array.isArray(payload.actions) ? (payload.actions[0] as Record<string, unknown>) : undefined;
  let value: { question_id?: unknown; answer?: unknown } = {};
  try {
    value = JSON.parse(str(action?.value) ?? '');
  } catch {
    return refused('actions[0].value', "is not one of the assistant's answer buttons");
  }
  if (!str(value.question_id) || !str(value.answer)) {
    return refused('actions[0].value', "is not one of the assistant's answer buttons");
  }
  const message = (payload.message as Record<string, unknown> | undefined) ?? {};
  const threadTs = str(message.thread_ts);
  return {
    kind: 'message',
    message: {
      channel: 'slack',
      externalId: user,
      sessionId: slackSessionId(channel, threadTs),
      text: value.answer as string,
      replyTo: value.question_id as string,
      metadata: {
        slack: { channel, thread_ts: threadTs, message_ts: str(container.message_ts), action_id: action?.action_id },
      },
    },
  };
}

function parseEventCallback(payload: Record<string, unknown>): InboundResult {
  const event = payload.event as Record<string, unknown> | undefined;
  if (!event || typeof event !== 'object') return refused('event', 'must be the event of an event_callback');
  if (event.type !== 'message' && event.type !== 'app_mention') {
    return { kind: 'ignored', reason: `a ${String(event.type)} event is not a message` };
  }
  // Edits, deletions, joins and the bot's own messages (bot_id) are not the user talking.
  const subtype = str(event.subtype);
  if (str(event.bot_id) || (subtype && subtype !== 'file_share' && subtype !== 'thread_broadcast')) {
    return { kind: 'ignored', reason: `a message with subtype ${subtype ?? 'bot_message'} is not taken` };
  }
  if (event.type === 'message' && event.channel_type !== 'im') {
    return { kind: 'ignored', reason: 'only direct messages and mentions are taken' };
  }
  const user = str(event.user);
  if (!user || !SLACK_USER_ID.test(user)) return refused('event.user', 'must be a Slack user id');
  const channel = str(event.channel);
  if (!channel || !SLACK_CHANNEL_ID.test(channel)) return refused('event.channel', 'must be a Slack channel id');
  const ts = str(event.ts);
  if (!ts || !SLACK_TS.test(ts)) return refused('event.ts', 'must be a Slack message timestamp');
  const threadTs = str(event.thread_ts);
  if (threadTs !== undefined && !SLACK_TS.test(threadTs)) {
    return refused('event.thread_ts', 'must be a Slack message timestamp');
  }
  const text = typeof event.text === 'string' ? event.text : '';
  const file = fileOf(event.files);
  if (text.trim() === '' && !file) {
    return {
      kind: 'refused',
      refusal: {
        statusCode: 415,
        code: 'unsupported_message',
        message: 'only text messages and files are supported',
        field: 'event.text',
      },
    };
  }
  if (text.length > SLACK_TEXT_LIMIT) return refused('event.text', `must be at most ${SLACK_TEXT_LIMIT} characters`);
  // A mention in a channel is answered in its thread; a DM's top level is the DM's own session.
  const sessionThread = threadTs ?? (event.type === 'app_mention' ? ts : undefined);
  return {
    kind: 'message',
    message: {
      channel: 'slack',
      externalId: user,
      sessionId: slackSessionId(channel, sessionThread),
      text,
      ...(file ? { file } : {}),
      ...(threadTs ? { replyTo: threadTs } : {}),
      metadata: {
        slack: {
          event_id: payload.event_id,
          team_id: payload.team_id,
          channel,
          ts,
          thread_ts: sessionThread,
          reply_target: slackTarget(channel, sessionThread),
        },
      },
    },
  };
}

/** An Events API body (event_callback) or an interactive payload (block_actions), as Socket Mode's envelope carries. */
export function parseSlackPayload(raw: unknown): InboundResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return refused('payload', 'must be a Slack event_callback or block_actions object');
  }
  const payload = raw as Record<string, unknown>;
  if (payload.type === 'event_callback') return parseEventCallback(payload);
  if (payload.type === 'block_actions') return parseBlockActions(payload);
  if (payload.type === 'url_verification')
    return { kind: 'ignored', reason: 'a URL verification is answered by the entry' };
  return refused('type', 'must be event_callback or block_actions');
}

/** Escapes the three characters Slack's mrkdwn gives meaning to (&, <, >): text stays text. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** What a reader sees of mrkdwn: links as their labels, entities decoded (for tests and logs). */
export function visibleTextOfMrkdwn(mrkdwn: string): string {
  return mrkdwn
    .replace(/<([^<>|]+)\|([^<>]*)>/g, '$2')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The model's Markdown as Slack mrkdwn: everything escaped, then **bold**, # headings and http(s) links. */
export function markdownToMrkdwn(markdown: string): string {
  return escapeSlack(markdown)
    .replace(/^#{1,6}[ \t]+(.+)$/gm, '*$1*')
    .replace(/\*\*([^*\n]+)\*\*/g, '*$1*')
    .replace(/\[([^\]\n|]{1,200})\]\((https?:\/\/[^\s()|]+)\)/g, '<$2|$1>');
}

/** Source chunks whose mrkdwn fits `limit` (escaping can lengthen a chunk: it is split again until it fits). */
function mrkdwnParts(text: string, limit: number): string[] {
  const out: string[] = [];
  const place = (chunk: string, size: number) => {
    const rendered = markdownToMrkdwn(chunk);
    if (rendered.length <= limit || size < 20) {
      out.push(rendered.slice(0, limit));
      return;
    }
    for (const smaller of splitText(chunk, Math.floor(size / 2))) place(smaller, Math.floor(size / 2));
  };
  for (const chunk of splitText(text, limit)) place(chunk, limit);
  return out;
}

export function renderSlack(message: OutboundMessage): RenderedPart[] {
  const parts: RenderedPart[] = mrkdwnParts(messageText(message), SLACK_PART_LIMIT).map((text) => ({
    text,
    format: 'slack-mrkdwn' as const,
  }));
  if (message.question && parts.length > 0) {
    const last = parts[parts.length - 1];
    const controls = questionControls(message.question);
    // A code or a free answer is typed as a reply in the question's thread: said in the text too.
    const how = controls.field
      ? `\n\n${escapeSlack(questionControlsAsText(message.question, 'reply in this thread'))}`
      : '';
    if (last.text.length + how.length <= SLACK_PART_LIMIT) last.text += how;
    else if (how) parts.push({ text: how.trim(), format: 'slack-mrkdwn' });
    Object.assign(parts[parts.length - 1], controls);
  }
  return parts;
}

/** chat.postMessage's body for one part: the text, and with buttons a section and an actions block. */
export function slackMessageBody(
  channel: string,
  part: RenderedPart,
  threadTs: string | undefined,
  questionId: string | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = { channel, text: part.text, mrkdwn: true, unfurl_links: false };
  if (threadTs) body.thread_ts = threadTs;
  if (part.buttons && part.buttons.length > 0 && questionId) {
    body.blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: part.text } },
      {
        type: 'actions',
        block_id: 'answer',
        elements: part.buttons.map((button, index) => ({
          type: 'button',
          action_id: `answer_${index}`,
          text: { type: 'plain_text', text: button.label.slice(0, 75) },
          value: slackButtonValue(questionId, button.answer),
          ...(button.answer === 'yes' ? { style: 'primary' } : {}),
        })),
      },
    ];
  }
  return body;
}

interface RawResponse {
  status: number;
  body: string;
  retryAfter?: string;
}

/** One POST that knows whether the request left: `sent` is true once the body was fully written. */
function postSlack(
  url: URL,
  token: string,
  payload: unknown,
  timeoutMs: number,
): Promise<{ ok: true; response: RawResponse } | { ok: false; sent: boolean; error: string }> {
  return new Promise((resolve) => {
    const body = JSON.stringify(payload);
    const transport = url.protocol === 'https:' ? https : http;
    let sent = false;
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      authorization: `Bearer ${token}`,
    };
    const request = transport.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({
          ok: true,
          response: {
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          },
        });
      });
      response.on('error', (error) => resolve({ ok: false, sent: true, error: error.message }));
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('finish', () => (sent = true));
    request.on('error', (error) => resolve({ ok: false, sent, error: error.message }));
    request.end(body);
  });
}

/** Errors after which the same send can work later; every other ok:false is final (a wrong token, channel, body). */
const SLACK_RETRYABLE = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** One Web API call (never echoes the token); `retry`/`failed`/`unknown` as a send outcome would classify it. */
export async function callSlack(
  bot: SlackBotConfig,
  method: string,
  payload: Record<string, unknown>,
): Promise<
  { ok: true; body: Record<string, unknown> } | { ok: false; outcome: Exclude<SendOutcome, { status: 'delivered' }> }
> {
  const base = bot.apiUrl.replace(/\/+$/, '') || 'https://slack.com/api';
  const result = await postSlack(new URL(`${base}/${method}`), bot.botToken, payload, bot.timeoutMs ?? 15_000);
  if (!result.ok) {
    if (result.sent)
      return { ok: false, outcome: { status: 'unknown', error: `Slack did not confirm ${method}: ${result.error}` } };
    return { ok: false, outcome: { status: 'retry', error: `Slack could not be reached: ${result.error}` } };
  }
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(result.response.body);
  } catch {
    answer = {};
  }
  const { status, retryAfter } = result.response;
  if (status === 200 && answer.ok === true) return { ok: true, body: answer };
  const error = str(answer.error) ?? `HTTP ${status}: ${result.response.body.slice(0, 200)}`;
  const why = `Slack's ${method} answered ${error}${retryAfter ? ` (retry after ${retryAfter} s)` : ''}`;
  if (status === 429 || status >= 500 || SLACK_RETRYABLE.has(error))
    return { ok: false, outcome: { status: 'retry', error: why } };
  return { ok: false, outcome: { status: 'failed', error: why } };
}

/** chat.postMessage per part into `target` ("<channel>" or "<channel>/<thread ts>"); the ts values are the receipt. */
export async function sendSlackParts(
  bot: SlackBotConfig | null | undefined,
  target: string | null,
  parts: RenderedPart[],
  questionId?: string,
): Promise<SendOutcome> {
  if (!bot?.botToken)
    return { status: 'retry', error: 'no Slack bot token is configured (the Assistant Slack App credential)' };
  const [channel, threadTs] = (target ?? '').split('/');
  if (!channel || !(SLACK_CHANNEL_ID.test(channel) || SLACK_USER_ID.test(channel))) {
    return { status: 'failed', error: 'the message has no Slack channel or user id' };
  }
  if (threadTs !== undefined && !SLACK_TS.test(threadTs))
    return { status: 'failed', error: 'the thread ts is not a Slack timestamp' };
  const ids: string[] = [];
  for (const part of parts) {
    const result = await callSlack(bot, 'chat.postMessage', slackMessageBody(channel, part, threadTs, questionId));
    if (result.ok) {
      ids.push(String(result.body.ts));
      continue;
    }
    if (ids.length === 0) return result.outcome;
    return {
      status: 'unknown',
      error: `${result.outcome.error} (after ${ids.length} part(s) went out: ${ids.join(',')})`,
    };
  }
  return { status: 'delivered', channelMessageId: ids.join(',') };
}

/**
 * Checks an Events API request (docs.slack.dev, "Verifying requests from Slack"): X-Slack-Signature is v0= and the
 * HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<raw body>" with the signing secret, the timestamp within five
 * minutes of `now`. Returns null when it holds, else why not (never the secret).
 */
export function slackSignatureProblem(
  secret: string,
  headers: { timestamp?: string | null; signature?: string | null },
  rawBody: string,
  now: Date,
): string | null {
  if (!secret) return 'no signing secret is configured';
  const timestamp = headers.timestamp ?? '';
  if (!/^\d{1,12}$/.test(timestamp)) return 'X-Slack-Request-Timestamp is missing or not a number';
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SLACK_SIGNATURE_MAX_AGE_SECONDS) {
    return 'X-Slack-Request-Timestamp is more than five minutes away (a replay?)';
  }
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
  const given = Buffer.from(headers.signature ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'X-Slack-Signature does not match';
  return null;
}

/** Until the people gate decides for Slack: only the owner's Slack user id may talk. */
export function slackOwnerOnly(ownerUserId: string | null | undefined, externalId: string): boolean {
  return typeof ownerUserId === 'string' && SLACK_USER_ID.test(ownerUserId.trim()) && ownerUserId.trim() === externalId;
}

export function slackChannel(bot?: SlackBotConfig | null): ChannelAdapter {
  return {
    name: 'slack',
    limits: {
      maxPartLength: SLACK_PART_LIMIT,
      maxInboundLength: SLACK_TEXT_LIMIT,
      formatting: 'slack-mrkdwn',
      buttons: 'native',
      typing: 'none',
      delivery: 'push',
    },
    parseInbound: parseSlackPayload,
    identityOf: (externalId) => ({ channel: 'slack', externalId }),
    render: renderSlack,
    send: (target, message) =>
      sendSlackParts(bot, target, renderSlack(message), message.question?.id ?? str(message.outbox?.data.question_id)),
  };
}
