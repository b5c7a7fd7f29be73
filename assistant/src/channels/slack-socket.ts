// Slack's Socket Mode (docs.slack.dev, "Using Socket Mode"): no public URL. apps.connections.open with the app-level
// token (xapp-) gives a WebSocket URL; Slack says hello, then sends envelopes {envelope_id, type, payload,
// retry_attempt}. Each is acknowledged at once ({"envelope_id": …}; unacknowledged ones come again within seconds),
// then handed on once: a retry of an event already handed on (the same event_id, or the same envelope) is dropped.
// A disconnect message ("warning", "refresh_requested") or a dropped socket opens a new connection; "link_disabled"
// (Socket Mode switched off) and a refused token stop with the reason.
import WebSocket from 'ws';

import { callSlack } from './slack';

export interface SlackSocketOptions {
  /** https://slack.com/api, or the credential's base URL. */
  apiUrl: string;
  /** The app-level token (xapp-…) with connections:write. */
  appToken: string;
  /** Called once per event (events_api) or interaction (interactive), after the envelope was acknowledged. */
  onPayload(payload: Record<string, unknown>, meta: { type: string; envelopeId: string; retryAttempt: number }): void;
  /** Told when the connection stops for good (a refused token, Socket Mode switched off). */
  onStopped?(reason: string): void;
  /** Told what happened (reconnects, dropped retries); never a token. */
  log?(message: string): void;
  /** How many handed-on event ids are remembered for dropping retries; default 5,000. */
  rememberIds?: number;
  /** The longest wait between reconnects; default 30 s. */
  maxBackoffMs?: number;
}

/** Why a Socket Mode connection cannot start: the token is wrong for it (no retry helps). */
export class SlackSocketRefusedError extends Error {}

const FINAL_OPEN_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'not_allowed_token_type',
  'account_inactive',
  'token_revoked',
]);

/** The id a retry shares with its first delivery: the event's id, else the envelope's. */
export function slackDeliveryKey(envelope: { envelope_id?: unknown; payload?: unknown }): string | null {
  const payload = envelope.payload as Record<string, unknown> | undefined;
  if (payload && typeof payload.event_id === 'string' && payload.event_id !== '') return `event:${payload.event_id}`;
  // An interaction has no event id; its trigger_id is one per click.
  if (payload && typeof payload.trigger_id === 'string' && payload.trigger_id !== '')
    return `trigger:${payload.trigger_id}`;
  return typeof envelope.envelope_id === 'string' ? `envelope:${envelope.envelope_id}` : null;
}

export class SlackSocketMode {
  private socket: WebSocket | null = null;
  private stopped = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly seen = new Set<string>();

  constructor(private readonly options: SlackSocketOptions) {}

  /** Opens the first connection; resolves once Slack said hello, rejects if the token is refused. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  /** Closes the connection; no reconnects follow. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close(1000);
        setTimeout(() => {
          socket.terminate();
          resolve();
        }, 2000).unref();
      });
    }
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  private async openUrl(): Promise<string> {
    const opened = await callSlack(
      { apiUrl: this.options.apiUrl, botToken: this.options.appToken },
      'apps.connections.open',
      {},
    );
    if (opened.ok && typeof opened.body.url === 'string') return opened.body.url;
    const error = opened.ok ? 'apps.connections.open gave no url' : opened.outcome.error;
    const code = /answered (\w+)/.exec(error)?.[1] ?? '';
    if (FINAL_OPEN_ERRORS.has(code)) {
      throw new SlackSocketRefusedError(`${error}: the App-Level Token must be an xapp- token with connections:write`);
    }
    throw new Error(error);
  }

  private connect(): Promise<void> {
    return this.openUrl().then(
      (url) =>
        new Promise<void>((resolve, reject) => {
          const socket = new WebSocket(url);
          let hello = false;
          const timer = setTimeout(() => {
            if (!hello) socket.terminate();
          }, 15_000);
          socket.on('message', (data) => {
            let message: Record<string, unknown>;
            try {
              message = JSON.parse(String(data));
            } catch {
              return;
            }
            if (message.type === 'hello') {
              hello = true;
              clearTimeout(timer);
              const previous = this.socket;
              this.socket = socket;
              this.failures = 0;
              if (previous && previous !== socket) previous.close(1000);
              resolve();
              return;
            }
            if (message.type === 'disconnect') {
              this.onDisconnectMessage(socket, String(message.reason ?? ''));
              return;
            }
            if (typeof message.envelope_id === 'string') this.onEnvelope(socket, message);
          });
          socket.on('error', (error) => this.options.log?.(`Slack socket error: ${error.message}`));
          socket.on('close', () => {
            clearTimeout(timer);
            if (!hello) reject(new Error('the Slack socket closed before hello'));
            if (this.socket === socket) {
              this.socket = null;
              this.scheduleReconnect('the Slack socket closed');
            }
          });
        }),
    );
  }

  private onEnvelope(socket: WebSocket, envelope: Record<string, unknown>): void {
    // Acknowledged first, whatever follows: Slack redelivers an envelope it has no ack for.
    socket.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
    const payload = envelope.payload;
    if (typeof payload !== 'object' || payload === null) return;
    const key = slackDeliveryKey(envelope);
    if (key !== null) {
      if (this.seen.has(key)) {
        this.options.log?.(`Slack retry ${String(envelope.retry_attempt ?? '')} of ${key} dropped (already handed on)`);
        return;
      }
      this.seen.add(key);
      const limit = this.options.rememberIds ?? 5000;
      while (this.seen.size > limit) this.seen.delete(this.seen.values().next().value as string);
    }
    this.options.onPayload(payload as Record<string, unknown>, {
      type: String(envelope.type ?? ''),
      envelopeId: String(envelope.envelope_id),
      retryAttempt: typeof envelope.retry_attempt === 'number' ? envelope.retry_attempt : 0,
    });
  }

  private onDisconnectMessage(socket: WebSocket, reason: string): void {
    if (reason === 'link_disabled') {
      this.stopped = true;
      this.options.onStopped?.('Socket Mode was switched off in the Slack app settings (link_disabled)');
      socket.close(1000);
      return;
    }
    // "warning" comes ~10 s before "refresh_requested": open the next connection now; the old one closes on hello.
    this.options.log?.(`Slack asked to reconnect (${reason || 'no reason'})`);
    if (this.socket === socket) this.socket = null;
    this.reconnectNow(socket);
  }

  private reconnectNow(previous?: WebSocket): void {
    if (this.stopped) return;
    this.connect().then(
      () => {
        if (previous && previous.readyState === WebSocket.OPEN) previous.close(1000);
      },
      (error: Error) => this.onConnectFailed(error),
    );
  }

  private scheduleReconnect(why: string): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = Math.min(this.options.maxBackoffMs ?? 30_000, 500 * 2 ** Math.min(this.failures, 6));
    this.options.log?.(`${why}; reconnecting in ${delay} ms`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.reconnectNow();
    }, delay);
  }

  private onConnectFailed(error: Error): void {
    if (error instanceof SlackSocketRefusedError) {
      this.stopped = true;
      this.options.onStopped?.(error.message);
      return;
    }
    this.failures += 1;
    this.scheduleReconnect(`Slack could not be reached (${error.message})`);
  }
}
