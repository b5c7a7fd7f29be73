import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/gateway/slots';

describe('an upstream with one slot', () => {
  it('serves a waiting person before waiting background work, each in arrival order', async () => {
    const slots = new Slots(1);
    const order: string[] = [];
    const release = await slots.acquire(false);
    const waiters = [
      ['heartbeat', false],
      ['judge', false],
      ['agent-1', true],
      ['agent-2', true],
    ].map(([name, interactive]) =>
      slots.acquire(interactive as boolean).then((done) => {
        order.push(name as string);
        done();
      }),
    );
    expect(slots.queued).toBe(4);
    release();
    await Promise.all(waiters);
    expect(order).toEqual(['agent-1', 'agent-2', 'heartbeat', 'judge']);
  });

  it('drops a waiting call whose caller gave up, and a release twice frees one slot', async () => {
    const slots = new Slots(1);
    const release = await slots.acquire(true);
    const aborter = new AbortController();
    const gaveUp = slots.acquire(true, aborter.signal);
    aborter.abort(new Error('caller left'));
    await expect(gaveUp).rejects.toThrow('caller left');
    expect(slots.queued).toBe(0);
    release();
    release();
    const next = await slots.acquire(false);
    const after = slots.acquire(false);
    let started = false;
    void after.then(() => (started = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toBe(false);
    next();
    await after;
  });
});
