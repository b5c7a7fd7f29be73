// A body over the limit: the 413 reaches the client every time, whether the body is declared or streamed, sent at
// once or slowly, because the server reads and discards the rest before it closes; a body beyond the discard cap
// gets the 413 and the connection closes at once.
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { DEFAULT_DISCARD_LIMITS } from '../../src/server/http';
import { ExactBackend } from '../helpers/exact-backend';

const KEY = 'test-key-0123456789';
const LIMIT = 64 * 1024;
const TOO_LARGE = {
  detail: { error_type: 'request_too_large', message: `The request body is larger than ${LIMIT} bytes.` },
};
let server: JudgeServer;

beforeAll(async () => {
  server = await startJudgeServer({
    apiKeys: [KEY],
    backend: new ExactBackend((q) => q.options.map(() => 1 / q.options.length)),
    limits: { maxBodyBytes: LIMIT },
    log: () => undefined,
  });
});
afterAll(async () => server.close());

const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
/** A JSON body of about `bytes` bytes. */
const bodyOf = (bytes: number) => JSON.stringify({ model: 'jev-latest', state: 'x'.repeat(bytes), questions: {} });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readAnswer(response: Response) {
  return { status: response.status, connection: response.headers.get('connection'), body: await response.json() };
}

/** A streamed (chunked, no content-length) body, `chunks` pieces of `chunkBytes`, `pauseMs` apart. */
function slowBody(chunks: number, chunkBytes: number, pauseMs: number): ReadableStream<Uint8Array> {
  const piece = new TextEncoder().encode('x'.repeat(chunkBytes));
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent === chunks) return controller.close();
      if (sent > 0) await sleep(pauseMs);
      controller.enqueue(piece);
      sent++;
    },
  });
}

describe('a body over the limit', () => {
  it('sent at once with its content-length (30x the limit): 413 every time, 40 times', async () => {
    const body = bodyOf(30 * LIMIT);
    for (let i = 0; i < 40; i++) {
      const answer = await readAnswer(await fetch(server.url + '/v1/systemone', { method: 'POST', headers, body }));
      expect(answer).toEqual({ status: 413, connection: 'close', body: TOO_LARGE });
    }
  });

  it('streamed at once without a content-length: 413 every time, 20 times', async () => {
    for (let i = 0; i < 20; i++) {
      const response = await fetch(server.url + '/v1/systemone', {
        method: 'POST',
        headers,
        body: slowBody(40, LIMIT, 0),
        duplex: 'half',
      } as RequestInit);
      expect(await readAnswer(response)).toEqual({ status: 413, connection: 'close', body: TOO_LARGE });
    }
  });

  it('streamed slowly, long after the 413 went out: still the 413, 5 times', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await fetch(server.url + '/v1/systemone', {
        method: 'POST',
        headers,
        body: slowBody(12, LIMIT / 2, 20),
        duplex: 'half',
      } as RequestInit);
      expect(await readAnswer(response)).toEqual({ status: 413, connection: 'close', body: TOO_LARGE });
    }
  });

  it('declared and written slowly: the 413 arrives before the body ends, and the whole body is written', async () => {
    const total = 10 * LIMIT;
    const piece = Buffer.alloc(LIMIT / 4, 'x');
    const answer = await new Promise<{ status: number; answeredAfterBytes: number; written: number }>(
      (resolve, reject) => {
        let written = 0;
        let status = 0;
        let answeredAfterBytes = -1;
        const req = httpRequest(
          server.url + '/v1/systemone',
          { method: 'POST', headers: { ...headers, 'content-length': total } },
          (res) => {
            status = res.statusCode!;
            answeredAfterBytes = written;
            res.resume();
          },
        );
        req.on('error', reject);
        const writeNext = () => {
          if (written >= total) {
            req.end(() => resolve({ status, answeredAfterBytes, written }));
            return;
          }
          written += piece.length;
          req.write(piece);
          setTimeout(writeNext, 5);
        };
        writeNext();
      },
    );
    expect(answer.status).toBe(413);
    expect(answer.answeredAfterBytes).toBeGreaterThanOrEqual(0);
    expect(answer.answeredAfterBytes).toBeLessThan(total);
    expect(answer.written).toBe(total);
  });

  it('declared beyond the discard cap: the 413 at once, then the connection closes', async () => {
    const declared = DEFAULT_DISCARD_LIMITS.bytes + 1;
    const { port } = new URL(server.url);
    const { text, closed } = await new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('error', () => undefined); // A reset after the answer is what closing means here.
      socket.on('close', () => resolve({ text, closed: true }));
      setTimeout(() => reject(new Error(`still open after 5 s; read: ${text}`)), 5_000);
      socket.write(
        `POST /v1/systemone HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\n` +
          `content-type: application/json\r\ncontent-length: ${declared}\r\n\r\n` +
          'x'.repeat(1024),
      );
    });
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"request_too_large"');
  });

  it('an answer that refuses before reading (401) leaves a large body to be discarded: the client reads it', async () => {
    const body = bodyOf(30 * LIMIT);
    for (let i = 0; i < 10; i++) {
      const response = await fetch(server.url + '/v1/systemone', {
        method: 'POST',
        headers: { ...headers, authorization: 'Bearer wrong-key' },
        body,
      });
      expect(response.status).toBe(401);
      await response.text();
    }
  });
});
