// Reading a body with a size limit: a declared Content-Length over the limit is not read at all; a stream is read up
// to the limit and then cancelled.
import { describe, expect, it } from 'vitest';

import { BodyTooLargeError, formatBytes, readBodyWithLimit } from '../../src/outbound/body';

/** A response streaming `chunks` chunks of 1 KB, counting how many were pulled. */
function streamed(chunks: number) {
  const pulled = { count: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.count >= chunks) return controller.close();
      pulled.count += 1;
      controller.enqueue(new Uint8Array(1024));
    },
  });
  return { response: new Response(body), pulled };
}

describe('readBodyWithLimit', () => {
  it('reads a body within the limit', async () => {
    const { response } = streamed(3);
    expect((await readBodyWithLimit(response, 4096)).length).toBe(3072);
  });
  it('stops at the limit and cancels the rest of the stream', async () => {
    const { response, pulled } = streamed(10_000);
    const error = await readBodyWithLimit(response, 8 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect((error as Error).message).toBe('it is larger than the 8 KB limit; reading stopped there');
    expect(pulled.count).toBeLessThan(20);
  });
  it('refuses a declared Content-Length over the limit without reading', async () => {
    const response = new Response('x'.repeat(100), { headers: { 'content-length': String(50 * 1024 * 1024) } });
    await expect(readBodyWithLimit(response, 1024 * 1024)).rejects.toThrow(
      'its Content-Length is 50 MB, over the 1 MB limit; it was not read',
    );
  });
});

describe('formatBytes', () => {
  it('names sizes the way people read them', () => {
    expect([500, 1536, 10 * 1024 * 1024, 3 * 1024 ** 3].map(formatBytes)).toEqual([
      '500 bytes',
      '1.5 KB',
      '10 MB',
      '3 GB',
    ]);
  });
});
