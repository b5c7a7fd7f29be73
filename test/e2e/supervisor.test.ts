// run.sh's supervisor on the real local stack (Postgres 17, the judge, n8n): n8n killed during a run is restarted,
// the restart is recorded, and the webhook answers again. The owner password never reaches the output.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, StartupFailed, waitFor } from '../../scripts/runtime/process';

const stateDir = mkdtempSync(path.join(tmpdir(), 'local-stack-'));
let child: ChildProcess | undefined;
let output = '';
let exitCode: number | null | undefined;
let n8nPort: number;

interface SupervisorState {
  services: Record<string, { pid: number }>;
  restarts: Array<{ service: string; restarted: boolean; exit: string }>;
}
const state = (): SupervisorState | undefined => {
  const file = path.join(stateDir, 'supervisor.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SupervisorState) : undefined;
};

beforeAll(async () => {
  chmodSync(stateDir, 0o755);
  n8nPort = await freePort();
  const env = {
    ...process.env,
    LOCAL_STATE_DIR: stateDir,
    N8N_PORT: String(n8nPort),
    POSTGRES_PORT: String(await freePort()),
    JUDGE_PORT: String(await freePort()),
    // Nothing answers here: the stack starts without a model (a hint is printed).
    ASSISTANT_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    JUDGE_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    // No Telegram: this stack must not take the shared fake Bot API's webhook from the e2e stack's entry (later
    // Telegram tests would then deliver to this stopped n8n).
    ASSISTANT_TELEGRAM_BOT_TOKEN: '',
  };
  child = spawn('node_modules/.bin/tsx', ['scripts/runtime/local.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', (code) => (exitCode = code));
  await waitFor(
    async () => {
      if (exitCode !== undefined) throw new StartupFailed(`local.ts exited (${exitCode}) during start:\n${output}`);
      return output.includes('Ctrl-C stops everything.') && state()?.services.n8n !== undefined;
    },
    { timeoutMs: 480_000, intervalMs: 500, what: 'the local stack' },
  );
});

afterAll(async () => {
  if (child && exitCode === undefined) {
    child.kill('SIGTERM');
    await waitFor(async () => exitCode !== undefined, { timeoutMs: 120_000, what: 'local.ts to stop' }).catch(() =>
      child!.kill('SIGKILL'),
    );
  }
  rmSync(stateDir, { recursive: true, force: true });
});

const agentWithoutKey = () =>
  fetch(`http://127.0.0.1:${n8nPort}/webhook/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hi', user_id: 'me' }),
  }).then(
    (response) => response.status,
    () => 0,
  );

describe('the local supervisor', () => {
  it('prints where the owner password is, never the password', () => {
    const password = /^OWNER_PASSWORD=(.*)$/m.exec(readFileSync(path.join(stateDir, 'local.env'), 'utf8'))![1];
    expect(password.length).toBeGreaterThan(8);
    expect(output).toContain('password: OWNER_PASSWORD in');
    expect(output).not.toContain(password);
  });

  it('restarts n8n killed during a run, records it, and the webhook answers again', async () => {
    expect(await agentWithoutKey()).toBe(401);
    const before = state()!;
    expect(before.restarts).toEqual([]);
    process.kill(before.services.n8n.pid, 'SIGKILL');
    await waitFor(async () => (state()?.restarts ?? []).some((r) => r.service === 'n8n' && r.restarted), {
      timeoutMs: 300_000,
      intervalMs: 500,
      what: 'the supervisor to restart n8n',
    });
    const after = state()!;
    expect(after.restarts[0]).toMatchObject({ service: 'n8n', restarted: true, exit: 'killed by SIGKILL' });
    expect(after.services.n8n.pid).not.toBe(before.services.n8n.pid);
    expect(output).toMatch(/supervisor: n8n killed by SIGKILL; restarting in 1 s \(restart 1\)/);
    await waitFor(async () => (await agentWithoutKey()) === 401, { timeoutMs: 120_000, what: 'the webhook again' });
    expect(exitCode).toBeUndefined();
  });

  it('stops everything on SIGTERM and exits 0', async () => {
    child!.kill('SIGTERM');
    await waitFor(async () => exitCode !== undefined, { timeoutMs: 120_000, what: 'local.ts to stop' });
    expect(exitCode).toBe(0);
  });
});
