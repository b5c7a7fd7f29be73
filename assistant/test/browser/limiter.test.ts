// The limiter: at most maxActive jobs at a time, maxQueued more waiting in order, anything beyond refused at once.
import { describe, expect, it } from 'vitest';

import { BusyError, Limiter } from '../../src/browser/limiter';

/** A job that runs until the test releases it. */
function heldJob(log: string[], name: string) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    run: async () => {
      log.push(`start ${name}`);
      await held;
      log.push(`end ${name}`);
      return name;
    },
    release: () => release(),
  };
}

describe('Limiter', () => {
  it('runs maxActive jobs, queues the next in order, and refuses beyond the queue', async () => {
    const limiter = new Limiter(1, 1);
    const log: string[] = [];
    const a = heldJob(log, 'a');
    const b = heldJob(log, 'b');
    const first = limiter.run(a.run);
    const second = limiter.run(b.run);
    await Promise.resolve();
    expect([limiter.active, limiter.queued]).toEqual([1, 1]);
    await expect(limiter.run(async () => 'c')).rejects.toBeInstanceOf(BusyError);
    a.release();
    expect(await first).toBe('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a', 'end a', 'start b']);
    expect([limiter.active, limiter.queued]).toEqual([1, 0]);
    b.release();
    expect(await second).toBe('b');
    expect([limiter.active, limiter.queued]).toEqual([0, 0]);
  });

  it('frees the slot when a job fails', async () => {
    const limiter = new Limiter(1, 0);
    await expect(limiter.run(async () => Promise.reject(new Error('broken page')))).rejects.toThrow('broken page');
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.active).toBe(0);
  });
});
