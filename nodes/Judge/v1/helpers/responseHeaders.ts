// The headers the judge server puts on every answer, passed through the wrapper: X-Request-Id (and the same value as
// x-typesafe-request-id, which the TypeSafe SDK reads) and Server-Timing. The caller's own X-Request-Id is forwarded
// to the judge, which keeps it when it is well formed, as the server does for a direct call.
import { randomUUID } from 'node:crypto';

/** The ids the judge server keeps (judge/src/server/index.ts); anything else gets a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const PASSED_THROUGH_HEADERS = ['x-request-id', 'x-typesafe-request-id', 'server-timing'] as const;

/** The caller's X-Request-Id when the judge server would keep it, else a new UUID. */
export function requestIdOf(headers: Record<string, unknown> | undefined): string {
  const incoming = headers?.['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The answer's headers: the judge's own X-Request-Id, x-typesafe-request-id and Server-Timing when it sent them;
 * otherwise (an answer the node made itself, or a provider without them) the request's id and the node's time.
 */
export function answerHeaders(
  judgeHeaders: Record<string, unknown> | undefined,
  requestId: string,
  elapsedMs: number,
): Record<string, string> {
  const from = (name: string): string | undefined => {
    const value = judgeHeaders?.[name];
    const text = Array.isArray(value) ? value.join(', ') : value;
    return typeof text === 'string' && text !== '' ? text : undefined;
  };
  const id = from('x-request-id') ?? from('x-typesafe-request-id') ?? requestId;
  return {
    'x-request-id': id,
    'x-typesafe-request-id': from('x-typesafe-request-id') ?? id,
    'server-timing': from('server-timing') ?? `total;dur=${elapsedMs.toFixed(2)}`,
  };
}
