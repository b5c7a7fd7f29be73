// The supervisor with fake services (time and processes under the test's control): a dead service is restarted
// with backoff and recorded; one that keeps dying is given up on, once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Supervisor, type ProcessEnd, type SupervisedService } from '../../../scripts/runtime/supervisor';
import { waitFor } from '../../../scripts/runtime/process';

const dir = mkdtempSync(path.join(tmpdir(), 'supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A service whose process the test kills; restarts give it a new pid. */
function fakeService(name: string, failRestarts = 0) {
  let pid = 100;
  let kill!: (end: ProcessEnd) => void;
  let exit = new Promise<ProcessEnd>((resolve) => (kill = resolve));
  let failures = failRestarts;
  const service: SupervisedService & { kill(end: ProcessEnd): void; restarts: number } = {
    name,
    restarts: 0,
    pid: () => pid,
    whenExited: () => exit,
    kill: (end) => kill(end),
    restart: async () => {
      service.restarts++;
      if (failures-- > 0) throw new Error('port in use');
      pid++;
      exit = new Promise<ProcessEnd>((resolve) => (kill = resolve));
    },
  };
  return service;
}

describe('supervisor', () => {
  it('restarts a dead service after its backoff and records it in the state file', async () => {
    const waits: number[] = [];
    const lines: string[] = [];
    const stateFile = path.join(dir, 'state.json');
    const supervisor = new Supervisor({
      log: (line) => lines.push(line),
      stateFile,
      backoffMs: (n) => (waits.push(n), 1),
      onGiveUp: () => {
        throw new Error('must not give up');
      },
    });
    const n8n = fakeService('n8n');
    supervisor.watch(n8n);
    n8n.kill({ code: null, signal: 'SIGKILL' });
    await waitFor(async () => supervisor.restarts().length === 1, { timeoutMs: 10_000, what: 'a restart' });
    expect(supervisor.restarts()[0]).toMatchObject({ service: 'n8n', restarted: true, exit: 'killed by SIGKILL' });
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(state.services.n8n.pid).toBe(101);
    expect(lines.join('\n')).toMatch(/n8n is running again \(pid 101\)/);
    n8n.kill({ code: 1, signal: null });
    await waitFor(async () => supervisor.restarts().length === 2, { timeoutMs: 10_000, what: 'a second restart' });
    expect(waits).toEqual([1, 2]);
    supervisor.stop();
  });

  it('counts failed restarts, and gives up once after maxRestarts within the window', async () => {
    const givenUp: string[] = [];
    const supervisor = new Supervisor({
      log: () => undefined,
      maxRestarts: 2,
      backoffMs: () => 1,
      onGiveUp: (service, reason) => givenUp.push(`${service}: ${reason}`),
    });
    const judge = fakeService('judge', 5);
    supervisor.watch(judge);
    judge.kill({ code: 1, signal: null });
    await waitFor(async () => givenUp.length === 1, { timeoutMs: 10_000, what: 'giving up' });
    expect(judge.restarts).toBe(2);
    expect(givenUp[0]).toMatch(/^judge: judge exited with code 1 after 2 restarts within 600 s$/);
    expect(supervisor.restarts().map((r) => r.restarted)).toEqual([false, false, false]);
  });
});
