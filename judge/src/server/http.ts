// Request-level helpers: reading a bounded body, replying in Jev's envelope, authentication.
import { checkKey, KeyRing } from '../shared/api-key';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../protocol/errors';

/** Reads the body, refusing (413) as soon as it passes `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    req.on('end', () => {
      ended = true;
      if (!failed) resolve(Buffer.concat(chunks));
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

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, `The request body is larger than ${maxBytes} bytes.`, 'request_too_large');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...extraHeaders,
  });
  res.end(text);
}

/** Jev's rules: no credentials → 403; wrong credentials → 401 authentication_error. */
export function authenticate(req: IncomingMessage, keys: KeyRing): void {
  const verdict = checkKey(req.headers.authorization, keys, 'bearer');
  if (verdict === 'missing') throw new ApiError(403, 'Not authenticated.', 'permission_error');
  if (verdict === 'not-bearer')
    throw new ApiError(403, 'Not authenticated: use "Authorization: Bearer <key>".', 'permission_error');
  if (verdict === 'wrong') throw new ApiError(401, 'Invalid API key.', 'authentication_error');
}
