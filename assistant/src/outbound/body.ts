// Reading a response body with a size limit: streamed, stopped (and the connection closed) at the limit, so a huge
// page is never buffered whole.

/** The body did not fit: `declared` when Content-Length said so before anything was read. */
export class BodyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly declared: number | undefined,
  ) {
    super(
      declared !== undefined
        ? `its Content-Length is ${formatBytes(declared)}, over the ${formatBytes(limit)} limit; it was not read`
        : `it is larger than the ${formatBytes(limit)} limit; reading stopped there`,
    );
    this.name = 'BodyTooLargeError';
  }
}

/** Reads `response`'s body up to `limit` bytes; more is a BodyTooLargeError (the stream is cancelled). */
export async function readBodyWithLimit(response: Response, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(limit, declared);
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new BodyTooLargeError(limit, undefined);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, size);
}

/** 10485760 → "10 MB", 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let amount = bytes;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  const text = unit === 0 || Number.isInteger(amount) ? String(Math.round(amount)) : amount.toFixed(1);
  return `${text} ${units[unit]}`;
}
