import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../src/util/limiter';

describe('ConcurrencyLimiter', () => {
  it('runs at most `limit` tasks at once, in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.run(async () => {
          active++;
          peak = Math.max(peak, active);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a waiting task whose signal aborts leaves the queue', async () => {
    const limiter = new ConcurrencyLimiter(1);
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const ran: string[] = [];
    const second = limiter.run(async () => void ran.push('second'), controller.signal);
    const third = limiter.run(async () => void ran.push('third'));
    controller.abort(new Error('caller left'));
    await expect(second).rejects.toThrow('caller left');
    release();
    await first;
    await third;
    expect(ran).toEqual(['third']);
  });
});
