// Request-level helpers: reading a bounded body, parsing it as JSON, replying in Jev's envelope.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, schemaError } from '../protocol/errors';
import { tooDeepMessage } from '../protocol/limits';
import { jsonNestingDepth } from '../protocol/validate';

/**
 * After a 413, how much more of the refused body is read and thrown away, and for how long, before the connection
 * closes (nginx's lingering close): a client still sending then reads the answer instead of a broken pipe. A body
 * declared larger than that is not waited for: the answer goes out and the connection closes at once.
 */
export interface DiscardLimits {
  bytes: number;
  ms: number;
}

export const DEFAULT_DISCARD_LIMITS: DiscardLimits = { bytes: 64 << 20, ms: 10_000 };

/** Requests whose refused body is being read off the wire; the answer ends when it settles. */
const discarding = new WeakMap<IncomingMessage, Promise<void>>();

/** Reads the body, refusing (413) as soon as it passes `maxBytes`; the rest is then discarded (`discardRest`). */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  discard: DiscardLimits = DEFAULT_DISCARD_LIMITS,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    if (declared <= discard.bytes) discardRest(req, discard);
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      failed = true;
      req.off('data', onData);
      discardRest(req, discard, size);
      reject(tooLarge(maxBytes));
    };
    req.on('data', onData);
    let ended = false;
    req.on('end', () => {
      ended = true;
      // Most bodies come in one chunk: no copy then.
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (error) => !failed && reject(error));
    // A client that hangs up mid-body: settle instead of waiting forever.
    req.on(
      'close',
      () =>
        !ended &&
        !failed &&
        reject(new ApiError(400, 'The client closed the connection before the body ended.', 'client_closed_request')),
    );
  });
}

/**
 * Reads the rest of a refused body and throws it away, until it ends, passes `limits.bytes` in all, or
 * `limits.ms` have gone by; `sendJson` ends the answer (and, with `connection: close`, the connection) only then.
 */
function discardRest(req: IncomingMessage, limits: DiscardLimits, alreadyRead = 0): void {
  let read = alreadyRead;
  const settled = new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      req.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.bytes) settle();
    };
    const timer = setTimeout(settle, limits.ms);
    req.on('data', count);
    req.once('end', settle);
    req.once('close', settle);
    req.once('error', settle);
  });
  discarding.set(req, settled);
  req.resume();
}

/** A request body as JSON: 400 when it nests deeper than `maxDepth` (checked before parsing), 422 when invalid. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (jsonNestingDepth(text) > maxDepth) throw badRequest(tooDeepMessage(maxDepth));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw schemaError([
      { loc: ['body'], msg: `The body is not valid JSON: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, `The request body is larger than ${maxBytes} bytes.`, 'request_too_large');
}

/**
 * Answers with a JSON body and its Content-Length: the headers are set at once, and go out with the body in one
 * write (see `endWhenTurnEnds` for when). `extraHeaders`: name, value, name, value, … after content-type and
 * content-length.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: string[] = []): void {
  const text = JSON.stringify(body);
  const headers: (string | number)[] = ['content-type', 'application/json', 'content-length', Buffer.byteLength(text)];
  for (let i = 0; i < extraHeaders.length; i++) headers.push(extraHeaders[i]);
  res.writeHead(status, headers);
  const refusedBody = discarding.get(res.req);
  if (refusedBody) {
    // The whole answer goes out now (its length is known); the end waits until the refused body is off the wire.
    res.write(text);
    void refusedBody.then(() => res.end());
    return;
  }
  endWhenTurnEnds(res, text);
}

/** Responses whose body waits for the end of this turn of the event loop: response, body, response, … */
let ending: (ServerResponse | string)[] = [];
/** Responses answered in this turn so far, and whether the turn's end is scheduled. */
let answeredThisTurn = 0;
let turnEndScheduled = false;
/** Whether the last turn answered more than one response: the server is under load. */
let busy = false;

/**
 * Ends a response with its body. Under load (the last turn of the event loop answered more than one response, or
 * this one already has), it waits for the end of this turn and goes out with every other response of the turn,
 * back to back, instead of one between each request read: the peer then wakes once for several answers rather
 * than once for each, which costs both sides less. A lone response (one request at a time) goes out at once.
 */
export function endWhenTurnEnds(res: ServerResponse, body: string): void {
  if (!turnEndScheduled) {
    turnEndScheduled = true;
    setImmediate(endTurn);
  }
  answeredThisTurn++;
  if (busy || answeredThisTurn > 1) ending.push(res, body);
  else res.end(body);
}

function endTurn(): void {
  busy = answeredThisTurn > 1;
  answeredThisTurn = 0;
  turnEndScheduled = false;
  const batch = ending;
  ending = [];
  for (let i = 0; i < batch.length; i += 2) {
    const res = batch[i] as ServerResponse;
    if (!res.destroyed) res.end(batch[i + 1] as string);
  }
}
