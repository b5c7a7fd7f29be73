// The request log's batched stdout writer: lines of one event-loop turn go out in one write, in order, and flush()
// writes what is queued at once.
import { describe, expect, it } from 'vitest';
import { BatchedLineWriter } from '../../src/server/log-writer';

describe('BatchedLineWriter', () => {
  it('writes the lines of one turn in one write, in order, each ending in a newline', async () => {
    const writes: string[] = [];
    const writer = new BatchedLineWriter((text) => writes.push(text));
    writer.push('{"n":1}');
    writer.push('{"n":2}');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n']);
    writer.push('{"n":3}');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n', '{"n":3}\n']);
  });

  it('flush() writes what is queued at once, and nothing when the queue is empty', async () => {
    const writes: string[] = [];
    const writer = new BatchedLineWriter((text) => writes.push(text));
    writer.push('a');
    writer.flush();
    expect(writes).toEqual(['a\n']);
    writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\n']);
  });
});
