// run.sh's default setup on the real local stack (Postgres 17, the model gateway, the judge, n8n) with its default
// model server, a local Ollama (the fake, 4,096-token default window): plain messages are answered through the
// gateway's derived model, created once and never reloaded, and nothing is cut. Then the supervisor: n8n killed during
// a run is restarted, the restart is recorded, and the webhook answers again. The owner password never reaches the
// output.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_PROBE_MESSAGE } from '../../scripts/doctor/chat';
import { freePort, StartupFailed, waitFor } from '../../scripts/runtime/process';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../fakes/ollama';

const stateDir = mkdtempSync(path.join(tmpdir(), 'local-stack-'));
let child: ChildProcess | undefined;
let output = '';
let exitCode: number | null | undefined;
let n8nPort: number;
let ollama: OllamaFake;
let ollamaControl: OllamaFakeControl;
const MODEL = 'qwen2.5:7b-instruct';

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
  ollama = await startOllamaFake({
    models: [{ name: MODEL, family: 'qwen2', contextLength: 32_768, parameterSize: '7.6B' }],
  });
  ollamaControl = new OllamaFakeControl(ollama.url);
  // The model calls doctor's tool at start, as a tool-capable model does (unscripted, the fake answers in plain text).
  await ollamaControl.addScript(TOOL_PROBE_MESSAGE, [
    { tool_calls: [{ name: 'doctor_lucky_number', arguments: { word: 'ping' } }] },
    { content: 'The number is 42.' },
  ]);
  n8nPort = await freePort();
  const env = {
    ...process.env,
    LOCAL_STATE_DIR: stateDir,
    N8N_PORT: String(n8nPort),
    POSTGRES_PORT: String(await freePort()),
    JUDGE_PORT: String(await freePort()),
    ASSISTANT_GATEWAY_PORT: String(await freePort()),
    // run.sh's defaults point both at a local Ollama: here the fake's URL, the same model.
    ASSISTANT_LLM_BASE_URL: `${ollama.url}/v1`,
    JUDGE_OPENAI_BASE_URL: `${ollama.url}/v1`,
    ASSISTANT_LLM_MODEL: MODEL,
    JUDGE_OPENAI_MODEL: MODEL,
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
  await ollama?.close();
});

const setting = (name: string): string =>
  new RegExp(`^${name}=(.*)$`, 'm').exec(readFileSync(path.join(stateDir, 'local.env'), 'utf8'))![1];

const askAgent = async (message: string) => {
  const response = await fetch(`http://127.0.0.1:${n8nPort}/webhook/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': setting('ASSISTANT_API_KEY') },
    body: JSON.stringify({ message, user_id: 'owner' }),
  });
  return { status: response.status, body: (await response.json()) as { reply?: string } };
};

const agentWithoutKey = () =>
  fetch(`http://127.0.0.1:${n8nPort}/webhook/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hi', user_id: 'me' }),
  }).then(
    (response) => response.status,
    () => 0,
  );

describe("run.sh's default setup with a local Ollama", () => {
  it('answers plain messages through the derived model, created once, never reloaded, nothing cut', async () => {
    // The second message is long (~2,800 tokens): with the agent's router tools (~1,700 tokens of schemas) a short
    // turn fits Ollama's 4,096 default, this one does not.
    const long = `and a second message, a long one: ${'the quick brown fox jumps over the lazy dog. '.repeat(250)}`;
    for (const message of ['hello there', long]) {
      const answer = await askAgent(message);
      // The fake echoes the first 200 characters.
      const reply = `echo: ${message.slice(0, 200)}`;
      expect(answer).toEqual({ status: 200, body: expect.objectContaining({ reply }) });
    }
    // doctor's quick verdict follows the start-up summary (the start does not wait for it): the model works.
    await waitFor(async () => output.includes(`doctor (quick): the chat model ${MODEL} works`), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: "doctor's verdict at start",
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}; doctor printed: ${output
          .split('\n')
          .filter((l) => /doctor|will not/.test(l))
          .join(' | ')}`,
      );
    });
    const seen = await ollamaControl.requests();
    // Every call (the agent's, and the judge's probe of its scoring method at start) goes to the derived model, whole.
    for (const request of seen) {
      expect(request).toMatchObject({ route: '/api/chat', model: `${MODEL}-ctx16384`, numCtx: 16_384, cut: null });
    }
    // The long turn's prompt is over Ollama's 4,096 default: the gateway's derived model holds it whole.
    // doctor's quick check at start (run.sh's summary) makes one small tool call of its own: not the agent's.
    const byDoctor = (request: { body: unknown }) =>
      ((request.body as { messages?: Array<{ content?: unknown }> }).messages ?? []).some(
        (message) => message.content === TOOL_PROBE_MESSAGE,
      );
    expect(seen.filter(byDoctor).length).toBeGreaterThanOrEqual(1);
    const agentCalls = seen.filter(
      (request) => ((request.body as { tools?: unknown[] }).tools ?? []).length > 0 && !byDoctor(request),
    );
    expect(agentCalls.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...agentCalls.map((request) => request.promptEvalCount))).toBeGreaterThan(4096);
    const tags = (await (await fetch(`${ollama.url}/api/tags`)).json()) as { models: Array<{ name: string }> };
    expect(tags.models.map((m) => m.name).sort()).toEqual([MODEL, `${MODEL}-ctx16384`]);
    expect(await ollamaControl.stats()).toMatchObject({ reloads: 1, cuts: 0 });
  });
});

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
