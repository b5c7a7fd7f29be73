// The server's fast path: answers of one busy event-loop turn written together, and a request's ticket whose
// AbortSignal is only made when a backend asks for it.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/protocol/errors';
import { Admission, Ticket } from '../../src/server/admission';
import { endWhenTurnEnds } from '../../src/server/http';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function fakeResponse(name: string, ended: string[]) {
  return { destroyed: false, end: (body: string) => ended.push(`${name}:${body}`) } as unknown as ServerResponse;
}

describe('endWhenTurnEnds', () => {
  it('writes a lone answer at once, and the answers of a busy turn together when the turn ends', async () => {
    await nextTurn();
    const ended: string[] = [];
    endWhenTurnEnds(fakeResponse('a', ended), '1');
    expect(ended).toEqual(['a:1']);
    // A second answer in the same turn waits for its end; so does every answer of the turn after a busy one.
    endWhenTurnEnds(fakeResponse('b', ended), '2');
    endWhenTurnEnds(fakeResponse('c', ended), '3');
    expect(ended).toEqual(['a:1']);
    await nextTurn();
    expect(ended).toEqual(['a:1', 'b:2', 'c:3']);
    endWhenTurnEnds(fakeResponse('d', ended), '4');
    expect(ended).toHaveLength(3);
    await nextTurn();
    expect(ended).toEqual(['a:1', 'b:2', 'c:3', 'd:4']);
    // The turn after a quiet one: at once again.
    await nextTurn();
    endWhenTurnEnds(fakeResponse('e', ended), '5');
    expect(ended.at(-1)).toBe('e:5');
    await nextTurn();
  });

  it('skips a response whose connection is gone by then', async () => {
    await nextTurn();
    const ended: string[] = [];
    endWhenTurnEnds(fakeResponse('a', ended), '1');
    const gone = fakeResponse('b', ended);
    endWhenTurnEnds(gone, '2');
    (gone as { destroyed: boolean }).destroyed = true;
    await nextTurn();
    expect(ended).toEqual(['a:1']);
    await nextTurn();
  });
});

describe('Ticket', () => {
  it('makes its signal only when asked, aborted already if the ticket is', () => {
    const ticket = new Ticket();
    const gone = new ApiError(499, 'gone', 'client_closed_request');
    ticket.abort(gone);
    ticket.abort(new Error('later aborts do nothing'));
    expect(ticket.aborted).toBe(true);
    expect(ticket.reason).toBe(gone);
    expect(ticket.signal.aborted).toBe(true);
    expect(ticket.signal.reason).toBe(gone);
  });

  it('a task that never reads the signal runs, and a deadline still ends the wait for it', async () => {
    const admission = new Admission({ concurrency: 1, queueLength: 1, deadlineMs: 20 });
    expect(await admission.admit(new Ticket(), async () => 'done')).toBe('done');
    let release!: () => void;
    const stubborn = admission.admit(
      new Ticket(),
      () => new Promise<string>((resolve) => (release = () => resolve('late'))),
    );
    const error = await stubborn.catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(504);
    expect(admission.stats).toEqual({ running: 1, waiting: 0 });
    release();
    await nextTurn();
    expect(admission.stats).toEqual({ running: 0, waiting: 0 });
  });
});
