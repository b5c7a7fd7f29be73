// A loopback Slack: the Web API methods the assistant calls, Socket Mode's WebSocket, and the Events API's signed
// HTTP deliveries, as Slack's docs describe them (docs.slack.dev: "Using Socket Mode", "Verifying requests from
// Slack", "The Events API", reference/methods/apps.connections.open and chat.postMessage, Block Kit's block_actions
// payload) and as slackapi/node-slack-sdk's socket-mode and web-api packages use them.
//
// Web API (POST /api/<method>, JSON or form body, the token in `Authorization: Bearer`; every answer is HTTP 200 with
// {ok: true, ...} or {ok: false, error}, except a rate limit: HTTP 429 with Retry-After and {ok: false, error:
// "ratelimited"}):
//   apps.connections.open  the app-level token (xapp-) only: {ok, url: "ws://127.0.0.1:<port>/link/?ticket=…"}; a bot
//                          token answers not_allowed_token_type, a wrong one invalid_auth, none not_authed.
//   chat.postMessage       the bot token (xoxb-) only; `channel` a channel id or a user id (the bot's DM with them,
//                          answered with the DM's D… id); text or blocks required (no_text); text over 40,000
//                          characters msg_too_long; blocks checked (at most 50; a section's text at most 3,000; a
//                          button's text at most 75 and value at most 2,000; action ids unique: invalid_blocks);
//                          a channel that is neither a user's DM nor added by `addChannel`: channel_not_found.
//                          Answers {ok, channel, ts, message}.
// Socket Mode: a client connects to the URL apps.connections.open gave (a ticket is good once), gets
// {type: "hello", num_connections, connection_info: {app_id}, debug_info}; events come as envelopes {envelope_id,
// type: "events_api" | "interactive", payload, accepts_response_payload, retry_attempt, retry_reason}; the client
// acknowledges with {"envelope_id": …}. An envelope not acknowledged within `ackTimeoutMs` is delivered again (a new
// envelope id, the same event_id, retry_attempt + 1, retry_reason "timeout"), up to 3 retries, as Slack retries
// events. `disconnect(reason)` sends {type: "disconnect", reason} ("warning", "refresh_requested", "link_disabled")
// and closes the socket.
// Events API over HTTP: `postEvent(url, payload)` sends the event_callback as Slack does, signed with the signing
// secret (X-Slack-Signature: v0=HMAC-SHA256 of "v0:<timestamp>:<body>", X-Slack-Request-Timestamp), with
// X-Slack-Retry-Num / X-Slack-Retry-Reason on a retry; `forge` sends a wrong signature or an old timestamp.
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenOnLoopback, readBody, sendJson } from './http-util';

export const SLACK_TEXT_LIMIT = 40_000;
export const SLACK_SECTION_TEXT_LIMIT = 3_000;
export const SLACK_MAX_RETRIES = 3;

export interface SlackFakeOptions {
  botToken: string;
  appToken: string;
  signingSecret: string;
  teamId?: string;
  appId?: string;
  botUserId?: string;
  /** How long an envelope waits for its acknowledgement before it is delivered again; Slack waits about 3 s. */
  ackTimeoutMs?: number;
}

export interface PostedMessage {
  channel: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  ts: string;
}

export interface DeliveredEnvelope {
  envelope_id: string;
  type: 'events_api' | 'interactive';
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt: number;
  retry_reason: string;
  acked: boolean;
}

export interface SlackFake {
  url: string;
  /** The Web API's base (what a credential's base URL holds): `${url}/api`. */
  apiUrl: string;
  /** What the bot posted, oldest first; with `channel`, only there (a user id names their DM). */
  posted(channel?: string): PostedMessage[];
  /** Every envelope delivered over the socket, retries included. */
  envelopes(): DeliveredEnvelope[];
  /** Socket Mode clients connected now. */
  connections(): number;
  /** A DM from `user` to the bot (a message.im event) over the socket; resolves with the envelope once acked or given up. */
  sendMessage(
    user: string,
    text: string,
    options?: { threadTs?: string; files?: unknown[] },
  ): Promise<DeliveredEnvelope>;
  /** A click on a button of one of the bot's messages (a block_actions payload) over the socket. */
  clickButton(user: string, posted: PostedMessage, actionId: string): Promise<DeliveredEnvelope>;
  /** The event_callback payload Slack would send for a DM (the Events API's body and Socket Mode's payload). */
  messageEvent(user: string, text: string, options?: { threadTs?: string; files?: unknown[] }): Record<string, unknown>;
  /** One delivery of `payload` as an envelope with `retryAttempt` (no retries of its own), as Slack's retry sends. */
  redeliver(payload: Record<string, unknown>, retryAttempt: number): Promise<DeliveredEnvelope>;
  /** A channel the bot is a member of (C…), so chat.postMessage may post there. */
  addChannel(id: string): void;
  /** Sends a disconnect message and closes every socket. */
  disconnect(reason: 'warning' | 'refresh_requested' | 'link_disabled'): void;
  /** The next `count` chat.postMessage calls answer 429 ratelimited with Retry-After `seconds`. */
  rateLimit(count: number, seconds: number): void;
  /** Signs and POSTs a payload as the Events API does; `forge` breaks the signature or the timestamp. */
  postEvent(
    url: string,
    payload: unknown,
    options?: { retryNum?: number; forge?: 'signature' | 'old-timestamp'; now?: Date },
  ): Promise<{ status: number; body: string; ms: number }>;
  close(): Promise<void>;
}

/** X-Slack-Signature of a body: v0= and the hex HMAC-SHA256 of "v0:<timestamp>:<body>" keyed by the signing secret. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : null;
}

function parseBody(req: IncomingMessage, raw: string): Record<string, unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('application/json')) return raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
  const params = new URLSearchParams(raw);
  const body: Record<string, unknown> = Object.fromEntries(params);
  if (typeof body.blocks === 'string') body.blocks = JSON.parse(body.blocks);
  return body;
}

/** Block Kit's limits the assistant's messages can reach; the first broken one, or null. */
function blocksProblem(blocks: unknown): string | null {
  if (!Array.isArray(blocks)) return 'blocks must be an array';
  if (blocks.length > 50) return 'no more than 50 items allowed';
  const actionIds = new Set<string>();
  for (const block of blocks as Array<Record<string, unknown>>) {
    if (block.type === 'section') {
      const text = (block.text as { type?: string; text?: string } | undefined) ?? {};
      if (typeof text.text !== 'string' || text.text === '') return 'section text is required';
      if (text.text.length > SLACK_SECTION_TEXT_LIMIT) return 'must be less than 3001 characters [json-pointer:/text]';
    } else if (block.type === 'actions') {
      const elements = block.elements as Array<Record<string, unknown>> | undefined;
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return 'actions: 1 to 25 elements';
      for (const element of elements) {
        const label = (element.text as { text?: string } | undefined)?.text;
        if (element.type !== 'button') return `unsupported element type ${String(element.type)}`;
        if (typeof label !== 'string' || label === '' || label.length > 75) return 'button text 1 to 75 characters';
        if (typeof element.value === 'string' && element.value.length > 2000) return 'button value over 2000';
        const id = element.action_id;
        if (typeof id !== 'string' || id === '' || id.length > 255) return 'action_id 1 to 255 characters';
        if (actionIds.has(id)) return `action_id ${id} is not unique`;
        actionIds.add(id);
      }
    } else if (block.type !== 'context' && block.type !== 'divider') {
      return `unsupported block type ${String(block.type)}`;
    }
  }
  return null;
}

export async function startSlackFake(options: SlackFakeOptions): Promise<SlackFake> {
  const teamId = options.teamId ?? 'T0FAKETEAM';
  const appId = options.appId ?? 'A0FAKEAPP1';
  const botUserId = options.botUserId ?? 'U0FAKEBOT1';
  const ackTimeoutMs = options.ackTimeoutMs ?? 3000;
  const posted: PostedMessage[] = [];
  const envelopes: DeliveredEnvelope[] = [];
  const tickets = new Set<string>();
  const channels = new Set<string>();
  const sockets = new Set<WebSocket>();
  const waiting = new Map<string, () => void>();
  const timers = new Set<NodeJS.Timeout>();
  let rateLimited = { count: 0, seconds: 0 };
  let clock = 1_700_000_000;
  let sequence = 0;
  const nextTs = () => `${clock + Math.floor(++sequence / 1000)}.${String(sequence % 1000).padStart(6, '0')}`;
  const dmOf = (user: string) => `D${user.slice(1)}`;
  const channelOf = (channel: string) => (/^[UW]/.test(channel) ? dmOf(channel) : channel);

  function postMessage(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
    if (rateLimited.count > 0) {
      rateLimited.count -= 1;
      res.setHeader('retry-after', String(rateLimited.seconds));
      sendJson(res, 429, { ok: false, error: 'ratelimited' });
      return;
    }
    const channelInput = typeof body.channel === 'string' ? body.channel.trim() : '';
    if (!/^[CDGUW][A-Z0-9]{2,30}$/.test(channelInput))
      return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
    const channel = channelOf(channelInput);
    if (!channel.startsWith('D') && !channels.has(channel))
      return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
    const text = typeof body.text === 'string' ? body.text : '';
    if (text === '' && body.blocks === undefined) return sendJson(res, 200, { ok: false, error: 'no_text' });
    if (text.length > SLACK_TEXT_LIMIT) return sendJson(res, 200, { ok: false, error: 'msg_too_long' });
    if (body.blocks !== undefined) {
      const problem = blocksProblem(body.blocks);
      if (problem) return sendJson(res, 200, { ok: false, error: 'invalid_blocks', errors: [problem] });
    }
    const threadTs = typeof body.thread_ts === 'string' && body.thread_ts !== '' ? body.thread_ts : undefined;
    const message: PostedMessage = {
      channel,
      text,
      ...(body.blocks !== undefined ? { blocks: body.blocks as unknown[] } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ts: nextTs(),
    };
    posted.push(message);
    const answer = { type: 'message', user: botUserId, bot_id: 'B0FAKEBOT1', app_id: appId, team: teamId, ...message };
    sendJson(res, 200, { ok: true, channel, ts: message.ts, message: answer });
  }

  const http = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = url.pathname.replace(/^\/api\//, '');
    if (req.method !== 'POST' || !url.pathname.startsWith('/api/'))
      return sendJson(res, 404, { ok: false, error: 'unknown_method' });
    const raw = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = parseBody(req, raw);
    } catch {
      return sendJson(res, 200, { ok: false, error: 'invalid_json' });
    }
    const token = bearer(req) ?? (typeof body.token === 'string' ? body.token : null);
    if (!token) return sendJson(res, 200, { ok: false, error: 'not_authed' });
    if (method === 'apps.connections.open') {
      if (token === options.botToken) return sendJson(res, 200, { ok: false, error: 'not_allowed_token_type' });
      if (token !== options.appToken) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
      const ticket = randomUUID();
      tickets.add(ticket);
      const { port } = http.server.address() as AddressInfo;
      return sendJson(res, 200, { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${appId}` });
    }
    if (method === 'chat.postMessage') {
      if (token === options.appToken) return sendJson(res, 200, { ok: false, error: 'not_allowed_token_type' });
      if (token !== options.botToken) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
      return postMessage(req, res, body);
    }
    if (method === 'auth.test') {
      if (token !== options.botToken) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
      return sendJson(res, 200, { ok: true, team_id: teamId, user_id: botUserId, bot_id: 'B0FAKEBOT1' });
    }
    sendJson(res, 200, { ok: false, error: 'unknown_method' });
  });

  const wss = new WebSocketServer({ noServer: true });
  http.server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => {
        let message: { envelope_id?: unknown };
        try {
          message = JSON.parse(String(data));
        } catch {
          return;
        }
        if (typeof message.envelope_id !== 'string') return;
        const envelope = envelopes.find((e) => e.envelope_id === message.envelope_id);
        if (!envelope || envelope.acked) return;
        envelope.acked = true;
        waiting.get(envelope.envelope_id)?.();
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: sockets.size,
          connection_info: { app_id: appId },
          debug_info: { host: 'applink-fake', build_number: 1, approximate_connection_time: 18060 },
        }),
      );
    });
  });

  /** Delivers one payload over a socket, again while it is not acknowledged; resolves with the acked (or last) envelope. */
  function deliver(
    type: DeliveredEnvelope['type'],
    payload: Record<string, unknown>,
    first = 0,
    retries = SLACK_MAX_RETRIES,
  ): Promise<DeliveredEnvelope> {
    return new Promise((resolve, reject) => {
      const attempt = (retry: number) => {
        const open = [...sockets].filter((ws) => ws.readyState === ws.OPEN);
        if (open.length === 0) {
          reject(new Error('no Socket Mode connection is open'));
          return;
        }
        const envelope: DeliveredEnvelope = {
          envelope_id: randomUUID(),
          type,
          payload,
          accepts_response_payload: false,
          retry_attempt: retry,
          retry_reason: retry === 0 ? '' : 'timeout',
          acked: false,
        };
        envelopes.push(envelope);
        const { acked: _acked, ...wire } = envelope;
        open[envelopes.length % open.length].send(JSON.stringify(wire));
        const timer = setTimeout(() => {
          timers.delete(timer);
          waiting.delete(envelope.envelope_id);
          if (retry < retries) attempt(retry + 1);
          else resolve(envelope);
        }, ackTimeoutMs);
        timers.add(timer);
        waiting.set(envelope.envelope_id, () => {
          clearTimeout(timer);
          timers.delete(timer);
          waiting.delete(envelope.envelope_id);
          resolve(envelope);
        });
      };
      attempt(first);
    });
  }

  function messageEvent(user: string, text: string, opts: { threadTs?: string; files?: unknown[] } = {}) {
    clock += 1;
    const ts = nextTs();
    const event = {
      type: 'message',
      ...(opts.files ? { subtype: 'file_share', files: opts.files } : {}),
      channel: dmOf(user),
      user,
      text,
      ts,
      event_ts: ts,
      channel_type: 'im',
      team: teamId,
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
    };
    return {
      token: 'verification-token-unused',
      team_id: teamId,
      api_app_id: appId,
      event,
      type: 'event_callback',
      event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
      event_time: clock,
      authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
    };
  }

  return {
    url: http.url,
    apiUrl: `${http.url}/api`,
    posted: (channel) => posted.filter((m) => channel === undefined || m.channel === channelOf(channel)),
    envelopes: () => [...envelopes],
    connections: () => sockets.size,
    messageEvent,
    sendMessage: (user, text, opts) => deliver('events_api', messageEvent(user, text, opts)),
    clickButton(user, message, actionId) {
      const actions = ((message.blocks ?? []) as Array<{ type: string; elements?: Array<Record<string, unknown>> }>)
        .filter((block) => block.type === 'actions')
        .flatMap((block) => block.elements ?? []);
      const button = actions.find((element) => element.action_id === actionId);
      if (!button) throw new Error(`the message has no button ${actionId}`);
      clock += 1;
      const payload = {
        type: 'block_actions',
        user: { id: user, username: 'someone', team_id: teamId },
        api_app_id: appId,
        token: 'verification-token-unused',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
        trigger_id: `${clock}.${randomUUID().slice(0, 8)}`,
        team: { id: teamId, domain: 'fake' },
        channel: { id: message.channel, name: 'directmessage' },
        message: {
          type: 'message',
          user: botUserId,
          ts: message.ts,
          text: message.text,
          ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
        },
        response_url: `${http.url}/actions/${randomUUID()}`,
        actions: [{ ...button, block_id: 'answer', action_ts: `${clock}.000100` }],
      };
      return deliver('interactive', payload);
    },
    redeliver: (payload, retryAttempt) => deliver('events_api', payload, retryAttempt, retryAttempt),
    addChannel: (id) => void channels.add(id),
    disconnect(reason) {
      for (const ws of sockets) {
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } }));
        ws.close(1000);
      }
    },
    rateLimit(count, seconds) {
      rateLimited = { count, seconds };
    },
    async postEvent(url, payload, opts = {}) {
      const body = JSON.stringify(payload);
      const now = opts.now ?? new Date();
      const seconds = Math.floor(now.getTime() / 1000) - (opts.forge === 'old-timestamp' ? 6 * 60 : 0);
      const timestamp = String(seconds);
      const secret = opts.forge === 'signature' ? `${options.signingSecret}-forged` : options.signingSecret;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(secret, timestamp, body),
      };
      if (opts.retryNum) {
        headers['x-slack-retry-num'] = String(opts.retryNum);
        headers['x-slack-retry-reason'] = 'http_timeout';
      }
      const started = Date.now();
      const response = await fetch(url, { method: 'POST', headers, body });
      return { status: response.status, body: await response.text(), ms: Date.now() - started };
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const ws of sockets) ws.terminate();
      wss.close();
      await http.close();
    },
  };
}
