// setup.sh --check runs doctor (no root, nothing installed): its verdict and exit status come through, against the
// real gateway started in-process in front of the fake Ollama, and against a gateway on a closed port.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readGatewaySettings, startGateway, type RunningGateway } from 'assistant-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_PROBE_MESSAGE } from '../../scripts/doctor/chat';
import type { DoctorVerdict } from '../../scripts/doctor/verdict';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../fakes/ollama';
import { startNodeDatabase, type NodeDatabase } from '../nodes/helpers/postgres';

const SETUP = path.join(__dirname, '..', '..', 'setup.sh');
const GATEWAY_KEY = 'doctor-setup-gateway-key-0123456789';

let db: NodeDatabase;
let ollama: OllamaFake;
let gateway: RunningGateway;
let closedPort: number;

beforeAll(async () => {
  [db, ollama] = await Promise.all([startNodeDatabase({ migrated: true }), startOllamaFake()]);
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: 'postgres://unused',
    ASSISTANT_LLM_BASE_URL: `${ollama.url}/v1`,
  });
  gateway = await startGateway({ settings, ledger: db.pool });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([db?.stop(), ollama?.close()]);
});

interface SetupRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** setup.sh with these arguments, asynchronously (the gateway answers from this process meanwhile). */
async function setup(args: string[], env: Record<string, string>): Promise<SetupRun> {
  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOCAL_STATE_DIR: mkdtempSync(path.join(tmpdir(), 'doctor-setup-')),
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    ASSISTANT_LLM_MODEL: 'qwen3:8b',
    SYSTEMONE_JUDGE_URL: `http://127.0.0.1:${closedPort}`,
  };
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', [SETUP, ...args], {
      env: { ...base, ...env },
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('setup.sh --check', () => {
  it("prints doctor's verdict; exit 0 when the chat model works", async () => {
    await new OllamaFakeControl(ollama.url).addScript(TOOL_PROBE_MESSAGE, [
      { tool_calls: [{ name: 'doctor_lucky_number', arguments: { word: 'ping' } }] },
      { content: 'It is 42.' },
    ]);
    const run = await setup(['--check', '--quick', '--json'], { ASSISTANT_GATEWAY_URL: gateway.url });
    expect(run.status, run.stderr).toBe(0);
    const verdict = JSON.parse(run.stdout) as DoctorVerdict;
    expect(verdict).toMatchObject({
      chat: { reachable: true, toolCalling: 'works' },
      window: { window: 16384, fits: true },
      speed: { measured: false },
      judge: { reachable: false },
      chatModelFails: false,
    });
    expect(run.stdout).not.toContain(GATEWAY_KEY);
  });

  it('exit 1 when the gateway is not reachable, said in plain words', async () => {
    const run = await setup(['--check', '--quick'], { ASSISTANT_GATEWAY_URL: `http://127.0.0.1:${closedPort}` });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      `FAIL chat model qwen3:8b: the model gateway is not reachable at http://127.0.0.1:${closedPort} (is it running?)`,
    );
    expect(run.stdout).toContain('Verdict: the chat model FAILS');
  });

  it('--quick without --check, and a flag doctor does not know, are usage errors (exit 2)', async () => {
    const alone = await setup(['--quick'], {});
    expect(alone).toMatchObject({ status: 2, stderr: 'setup.sh: --quick and --json go with --check\n' });
    const unknown = await setup(['--check', '--fast'], {});
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('setup.sh: unknown option "--fast"');
  });
});
