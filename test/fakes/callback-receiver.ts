// A loopback client of the assistant's proactive messages: it receives the signed callback POSTs a webhook user asked
// for with `callback_url`, and can be told to fail a path a number of times (503).
//
// Control over HTTP (the fake runs in vitest's main process, the tests in workers):
//   POST /__fail      {path, times}   the next `times` POSTs to `path` answer 503 (-1: always)
//   GET  /__received?path=…           the POSTs received on `path`: [{at, status, signature, body}]
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readBody, sendJson, type RunningServer } from './http-util';

export interface ReceivedCallback {
  at: string;
  /** What the fake answered. */
  status: number;
  signature: string | null;
  body: string;
}

export async function startCallbackReceiver(): Promise<RunningServer> {
  const received = new Map<string, ReceivedCallback[]>();
  const failures = new Map<string, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/__fail' && req.method === 'POST') {
      const { path, times } = JSON.parse(await readBody(req)) as { path: string; times: number };
      failures.set(path, times);
      return sendJson(res, 200, { ok: true });
    }
    if (url.pathname === '/__received' && req.method === 'GET') {
      return sendJson(res, 200, received.get(url.searchParams.get('path') ?? '') ?? []);
    }
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
    const body = await readBody(req);
    const left = failures.get(url.pathname) ?? 0;
    const status = left !== 0 ? 503 : 204;
    if (left > 0) failures.set(url.pathname, left - 1);
    const list = received.get(url.pathname) ?? [];
    const signature = req.headers['x-signature'];
    list.push({
      at: new Date().toISOString(),
      status,
      signature: typeof signature === 'string' ? signature : null,
      body,
    });
    received.set(url.pathname, list);
    res.writeHead(status);
    res.end();
  }

  return listenOnLoopback(handle);
}

export class CallbackReceiverControl {
  constructor(private readonly url: string) {}

  async fail(path: string, times: number): Promise<void> {
    const response = await fetch(`${this.url}/__fail`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path, times }),
    });
    if (!response.ok) throw new Error(`callback receiver: HTTP ${response.status}`);
  }

  async received(path: string): Promise<ReceivedCallback[]> {
    const response = await fetch(`${this.url}/__received?path=${encodeURIComponent(path)}`);
    return (await response.json()) as ReceivedCallback[];
  }
}
