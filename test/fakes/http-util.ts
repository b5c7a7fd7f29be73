// Small helpers shared by the loopback fakes: read a request body, answer JSON, listen on 127.0.0.1:0, and close
// a server together with every socket still open on it (a fake that "hangs" must not keep the process alive).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with a free port; `close` also destroys open (e.g. deliberately hanging) connections. */
export async function listenOnLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake server error: ${String(error)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The user's own words of a message the assistant sent: a model answering the user reads past the context block the
 * assistant puts in front of them ("[Context from the assistant …]" … "[End of context]"), so the fakes' echo does.
 */
export function withoutContextBlock(text: string): string {
  return text.replace(/^\[Context from the assistant[^\n]*\][\s\S]*?\n\[End of context\]\n\n/, '');
}

/** A test's JSON POST to a fake: its status and parsed JSON body. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
