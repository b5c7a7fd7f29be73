// doctor (scripts/doctor/) against loopback fakes, through the real model gateway started in-process (its ledger in a
// real Postgres): the fake Ollama (the gateway's derived model and its window, the fake's simulated speed), the
// OpenAI-compatible fake (tool calls scripted; embeddings; transcription), a model that answers the tool in plain
// text (the OpenAI fake unscripted echoes), a provider on a closed port, no gateway at all; the real judge server
// (its /v1/models and scoring method). Each verdict and exit status asserted; --quick, --json, bad flags.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readGatewaySettings, startGateway, type RunningGateway } from 'assistant-core';
import { startJudgeServer, type JudgeServer } from 'systemone-judge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorCli } from '../../scripts/doctor/cli';
import { TOOL_PROBE_MESSAGE } from '../../scripts/doctor/chat';
import { plainReport, withoutSecrets } from '../../scripts/doctor/report';
import { runDoctor } from '../../scripts/doctor/run';
import { readDoctorSettings, secretsOf } from '../../scripts/doctor/settings';
import { expectedModels, startupVerdict } from '../../scripts/doctor/startup';
import type { DoctorVerdict } from '../../scripts/doctor/verdict';
import { OllamaFakeControl, startOllamaFake, type OllamaFake } from '../fakes/ollama';
import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../fakes/openai-chat';
import { startNodeDatabase, type NodeDatabase } from '../nodes/helpers/postgres';

const GATEWAY_KEY = 'doctor-gateway-key-0123456789';
const JUDGE_KEY = 'doctor-judge-key-0123456789';
const TOOL_CALL = [
  { tool_calls: [{ name: 'doctor_lucky_number', arguments: { word: 'ping' } }] },
  { content: 'The number is 42.' },
];

let db: NodeDatabase;
let ollama: OllamaFake;
let openai: OpenAiChatFake;
let judge: JudgeServer;
const gateways: RunningGateway[] = [];
let closedPort: number;
const stateDir = mkdtempSync(path.join(tmpdir(), 'doctor-'));

async function gatewayFor(env: Record<string, string>): Promise<string> {
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: 'postgres://unused',
    ...env,
  });
  const gateway = await startGateway({ settings, ledger: db.pool });
  gateways.push(gateway);
  return gateway.url;
}

async function freeClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let ollamaGateway: string;
let openaiGateway: string;
let deadProviderGateway: string;

beforeAll(async () => {
  [db, ollama, openai, closedPort] = await Promise.all([
    startNodeDatabase({ migrated: true }),
    startOllamaFake({
      models: [
        { name: 'qwen3:8b', family: 'qwen3', contextLength: 40960 },
        { name: 'tiny:1b', family: 'llama', contextLength: 4096 },
      ],
      promptTokensPerSecond: 1000,
      outputTokensPerSecond: 50,
      timeScale: 0.01,
    }),
    startOpenAiChatFake(),
    freeClosedPort(),
  ]);
  ollamaGateway = await gatewayFor({ ASSISTANT_LLM_BASE_URL: `${ollama.url}/v1` });
  openaiGateway = await gatewayFor({
    ASSISTANT_LLM_BASE_URL: `${openai.url}/v1`,
    ASSISTANT_EMBEDDINGS_BASE_URL: `${openai.url}/v1`,
    ASSISTANT_TRANSCRIPTION_BASE_URL: `${openai.url}/v1`,
  });
  deadProviderGateway = await gatewayFor({ ASSISTANT_LLM_BASE_URL: `http://127.0.0.1:${closedPort}/v1` });
  judge = await startJudgeServer({
    apiKeys: [JUDGE_KEY],
    backend: {
      kind: 'openai',
      baseUrl: `${ollama.url}/v1`,
      apiKey: '',
      upstreamModel: 'qwen3:8b',
      id: 'doctor-judge-2026-11-29',
      description: 'the judge on the fake Ollama',
      releaseDate: '2026-11-29',
    },
    log: () => undefined,
  });
});
afterAll(async () => {
  await judge?.close();
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([db?.stop(), ollama?.close(), openai?.close()]);
});
beforeEach(async () => {
  await Promise.all([new OllamaFakeControl(ollama.url).reset(), new OpenAiChatFakeControl(openai.url).reset()]);
});

interface Run {
  status: number;
  out: string;
  err: string;
}

async function doctor(argv: string[], env: Record<string, string>): Promise<Run> {
  const run = { status: -1, out: '', err: '' };
  run.status = await doctorCli(
    argv,
    {
      LOCAL_STATE_DIR: stateDir,
      ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
      SYSTEMONE_JUDGE_URL: judge.url,
      SYSTEMONE_JUDGE_KEY: JUDGE_KEY,
      ...env,
    },
    { out: (text) => (run.out += `${text}\n`), err: (text) => (run.err += `${text}\n`) },
  );
  expect(run.out + run.err).not.toContain(GATEWAY_KEY);
  expect(run.out + run.err).not.toContain(JUDGE_KEY);
  return run;
}

const verdictOf = (run: Run): DoctorVerdict => JSON.parse(run.out) as DoctorVerdict;

describe('doctor on Ollama through the gateway', () => {
  it("works: tool calling, the derived model's window, Ollama's speeds, the judge's scoring method", async () => {
    await new OllamaFakeControl(ollama.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const run = await doctor([], { ASSISTANT_GATEWAY_URL: ollamaGateway, ASSISTANT_LLM_MODEL: 'qwen3:8b' });
    expect(run.status, run.out).toBe(0);
    expect(run.out).toContain('ok   chat model qwen3:8b: reachable through the gateway');
    expect(run.out).toMatch(/ok {3}window: 16384 tokens \(the gateway's Ollama model qwen3:8b-ctx16384\); .* it fits/);
    expect(run.out).toContain('ok   tool calling: works');
    // The fake's simulated 1000 prompt tokens/s and 50 output tokens/s, read from Ollama's own durations.
    expect(run.out).toMatch(/speed: prefill (99\d|10[01]\d)(\.\d)? tokens\/s, output 50 tokens\/s \(Ollama's timings/);
    expect(run.out).toContain('ok   judge model doctor-judge-2026-11-29: scored by top_logprobs (calibrated)');
    expect(run.out).toContain('note embeddings: not configured');
    expect(run.out).toContain('- recall by meaning: no embeddings are configured; recall falls back to words');
    expect(run.out).toContain('- voice notes: no transcription is configured');
    expect(run.out).toContain('Verdict: the chat model works.');
  });

  it("fails when the agent's prompt does not fit the model's window", async () => {
    await new OllamaFakeControl(ollama.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const run = await doctor(['--quick', '--json'], {
      ASSISTANT_GATEWAY_URL: ollamaGateway,
      ASSISTANT_LLM_MODEL: 'tiny:1b',
    });
    expect(run.status).toBe(1);
    const verdict = verdictOf(run);
    expect(verdict.window).toMatchObject({ window: 4096, fits: false, ollama: true, servedModel: 'tiny:1b-ctx4096' });
    expect(verdict.window!.agentPromptTokens).toBeGreaterThan(4096 - 2048);
    expect(verdict.missing).toContainEqual({
      feature: 'the assistant itself (every reply)',
      why: "the agent's prompt does not fit the model's window",
    });
  });

  it('--quick skips the speed probe: no long prompt reaches the model', async () => {
    await new OllamaFakeControl(ollama.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const run = await doctor(['--quick'], { ASSISTANT_GATEWAY_URL: ollamaGateway, ASSISTANT_LLM_MODEL: 'qwen3:8b' });
    expect(run.status).toBe(0);
    expect(run.out).toContain('note speed: not measured (--quick)');
    expect(await new OllamaFakeControl(ollama.url).requests('Summarise this')).toHaveLength(0);
    const full = await doctor([], { ASSISTANT_GATEWAY_URL: ollamaGateway, ASSISTANT_LLM_MODEL: 'qwen3:8b' });
    expect(full.status).toBe(0);
    expect(await new OllamaFakeControl(ollama.url).requests('Summarise this')).toHaveLength(1);
  });
});

describe('doctor on an OpenAI-compatible provider', () => {
  const env = () => ({
    ASSISTANT_GATEWAY_URL: openaiGateway,
    ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
    ASSISTANT_EMBEDDINGS_BASE_URL: `${openai.url}/v1`,
    ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
    ASSISTANT_TRANSCRIPTION_BASE_URL: `${openai.url}/v1`,
  });

  it('works: tool calling, the table window, wall-clock speed, embeddings and transcription; --json shape', async () => {
    await new OpenAiChatFakeControl(openai.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const run = await doctor(['--json'], env());
    expect(run.status).toBe(0);
    const verdict = verdictOf(run);
    expect(verdict).toMatchObject({
      chatModel: 'gpt-4o-mini',
      chat: { reachable: true, toolCalling: 'works', problem: null },
      window: { window: 128_000, source: "the gateway's table", fits: true, ollama: false },
      speed: { measured: true, by: 'wall clock', prefillTokensPerSecond: null, outputTokens: expect.any(Number) },
      judge: {
        reachable: true,
        models: expect.arrayContaining([{ name: 'doctor-judge-2026-11-29', method: 'top_logprobs', calibrated: true }]),
      },
      embeddings: { configured: true, works: true },
      transcription: { configured: true, works: true, detail: 'whisper-1' },
      missing: [],
      chatModelFails: false,
    });
    expect(verdict.embeddings.detail).toMatch(/^text-embedding-3-small, \d+ dimensions$/);
    const requests = await new OpenAiChatFakeControl(openai.url).requests(TOOL_PROBE_MESSAGE);
    expect(requests.length).toBe(2);
  });

  it('names a model that answers the tool with plain text, exit 1', async () => {
    const run = await doctor(['--quick'], env());
    expect(run.status).toBe(1);
    expect(run.out).toContain(
      `FAIL tool calling: the model answered in plain text instead of calling the tool ("echo: ${TOOL_PROBE_MESSAGE}`.slice(
        0,
        90,
      ),
    );
    expect(run.out).toContain('- the agent using its tools');
    expect(run.out).toContain('Verdict: the chat model FAILS');
  });
});

describe('doctor when things are not reachable', () => {
  it('a provider on a closed port: the chat model fails, exit 1', async () => {
    const run = await doctor(['--quick'], {
      ASSISTANT_GATEWAY_URL: deadProviderGateway,
      ASSISTANT_LLM_MODEL: 'qwen3:8b',
    });
    expect(run.status).toBe(1);
    expect(run.out).toMatch(/FAIL chat model qwen3:8b: the model gateway answered HTTP 502: .*/);
    expect(run.out).toContain('- the assistant itself (every reply): the chat model is not usable');
  });

  it('no gateway and no judge: both named in plain words', async () => {
    const run = await doctor(['--json'], {
      ASSISTANT_GATEWAY_URL: `http://127.0.0.1:${closedPort}`,
      ASSISTANT_LLM_MODEL: 'qwen3:8b',
      SYSTEMONE_JUDGE_URL: `http://127.0.0.1:${closedPort}`,
    });
    expect(run.status).toBe(1);
    const verdict = verdictOf(run);
    expect(verdict.chat).toMatchObject({ reachable: false, problemKind: 'unreachable', toolCalling: 'untested' });
    expect(verdict.chat.problem).toBe(
      `the model gateway is not reachable at http://127.0.0.1:${closedPort} (is it running?)`,
    );
    expect(verdict.window).toBeNull();
    expect(verdict.speed.measured).toBe(false);
    expect(verdict.judge.reachable).toBe(false);
    expect(verdict.missing.map((m) => m.feature)).toEqual(
      expect.arrayContaining(['notify_when checks', 'the Analyst expert', 'the Judge node']),
    );
  });

  it('a model that never answers cannot hang doctor: the time limit is named', async () => {
    await new OpenAiChatFakeControl(openai.url).addScript(TOOL_PROBE_MESSAGE, [{ hang: true }]);
    const settings = readDoctorSettings({
      LOCAL_STATE_DIR: stateDir,
      ASSISTANT_GATEWAY_URL: openaiGateway,
      ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
      ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
      SYSTEMONE_JUDGE_URL: judge.url,
    });
    const started = Date.now();
    const verdict = await runDoctor(settings, { quick: true, modelTimeoutMs: 1500 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(verdict.chat).toMatchObject({
      reachable: false,
      problemKind: 'timeout',
      problem: 'the model gateway did not answer within 1.5 s',
    });
    expect(verdict.chatModelFails).toBe(true);
    expect(plainReport(verdict)).toContain(
      'FAIL chat model gpt-4o-mini: the model gateway did not answer within 1.5 s',
    );
  });

  it('a wrong gateway key is named', async () => {
    const run = await doctor(['--quick', '--json'], {
      ASSISTANT_GATEWAY_URL: ollamaGateway,
      ASSISTANT_LLM_MODEL: 'qwen3:8b',
      ASSISTANT_GATEWAY_KEY: 'not-the-gateway-key-0000',
    });
    expect(run.status).toBe(1);
    expect(verdictOf(run).chat).toMatchObject({ reachable: false, problemKind: 'unauthorized' });
  });
});

describe('doctor command line', () => {
  it('keeps every key out of the report, placeholders such as "ollama" aside', () => {
    const settings = readDoctorSettings({
      LOCAL_STATE_DIR: stateDir,
      ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
      ASSISTANT_LLM_MODEL: 'qwen3:8b',
      ASSISTANT_LLM_API_KEY: 'ollama',
      ASSISTANT_EMBEDDINGS_BASE_URL: 'https://api.openai.com/v1',
      ASSISTANT_EMBEDDINGS_API_KEY: 'sk-provider-secret-0123456789',
      SYSTEMONE_JUDGE_KEY: JUDGE_KEY,
    });
    const text = `ollama said ${GATEWAY_KEY}, ${JUDGE_KEY} and sk-provider-secret-0123456789`;
    expect(withoutSecrets(text, secretsOf(settings))).toBe('ollama said ***, *** and ***');
  });

  it('a bad flag is a usage error, exit 2', async () => {
    const run = await doctor(['--fast'], {});
    expect(run.status).toBe(2);
    expect(run.err).toContain('doctor: unknown option "--fast"');
    expect(run.err).toContain('usage: npx tsx scripts/doctor.ts [--quick] [--json]');
  });

  it('a missing setting is named, exit 2', async () => {
    const run = await doctor([], { ASSISTANT_GATEWAY_URL: ollamaGateway });
    expect(run.status).toBe(2);
    expect(run.err).toContain('ASSISTANT_LLM_MODEL: is not set');
  });
});

describe("doctor at start-up (run.sh's summary)", () => {
  const base = () => ({
    LOCAL_STATE_DIR: stateDir,
    ASSISTANT_GATEWAY_KEY: GATEWAY_KEY,
    SYSTEMONE_JUDGE_URL: judge.url,
    SYSTEMONE_JUDGE_KEY: JUDGE_KEY,
    ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
  });

  it('names the expected models, embeddings and voice on or off', () => {
    expect(
      expectedModels({
        ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
        ASSISTANT_LLM_BASE_URL: 'https://api.openai.com/v1',
        JUDGE_OPENAI_MODEL: 'gpt-4o-mini',
        JUDGE_OPENAI_BASE_URL: 'https://api.openai.com/v1',
        ASSISTANT_EMBEDDINGS_BASE_URL: 'https://api.openai.com/v1',
        ASSISTANT_TRANSCRIPTION_MODEL: 'off',
        ASSISTANT_TRANSCRIPTION_BASE_URL: 'https://api.openai.com/v1',
      }),
    ).toEqual([
      "chat model gpt-4o-mini at https://api.openai.com/v1 (it must call tools, and the agent's prompt must fit its window)",
      'judge model gpt-4o-mini at https://api.openai.com/v1',
      'embeddings: text-embedding-3-small; speech to text: off',
    ]);
  });

  it("gives the quick verdict in a few lines; embeddings seen through n8n's gateway URL (the Docker stack's)", async () => {
    await new OpenAiChatFakeControl(openai.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const lines = await startupVerdict({
      ...base(),
      ASSISTANT_GATEWAY_URL: openaiGateway,
      ASSISTANT_EMBEDDINGS_GATEWAY_URL: 'http://gateway:5681/embeddings/v1',
      ASSISTANT_TRANSCRIPTION_MODEL: 'off',
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: 'http://gateway:5681/transcription/v1',
    });
    expect(lines).toEqual([
      'doctor (quick): the chat model gpt-4o-mini works',
      '  will not work: voice notes (no transcription is configured)',
      '  full report: npx tsx scripts/doctor.ts',
    ]);
    // --quick: no speed probe reached the model.
    expect(await new OpenAiChatFakeControl(openai.url).requests('Summarise this')).toHaveLength(0);
  });

  it('says why the chat model fails, and never takes longer than its bound', async () => {
    const failing = await startupVerdict({ ...base(), ASSISTANT_GATEWAY_URL: deadProviderGateway });
    expect(failing[0]).toMatch(
      /^doctor \(quick\): the chat model gpt-4o-mini FAILS: the model gateway answered HTTP 502/,
    );
    expect(failing).toContain('  full report: npx tsx scripts/doctor.ts');

    await new OpenAiChatFakeControl(openai.url).addScript(TOOL_PROBE_MESSAGE, [{ hang: true }]);
    const started = Date.now();
    const late = await startupVerdict({ ...base(), ASSISTANT_GATEWAY_URL: openaiGateway }, { timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(late).toEqual([
      'doctor: no verdict within 1 s (a model may still be loading); the full report: npx tsx scripts/doctor.ts',
    ]);

    const unset = await startupVerdict({ LOCAL_STATE_DIR: stateDir, ASSISTANT_GATEWAY_KEY: GATEWAY_KEY });
    expect(unset).toEqual(['doctor: not run: ASSISTANT_LLM_MODEL: is not set (in local.env or the environment)']);
  });
});

describe('doctor: which path recall by meaning takes (scripts/doctor/recall-path.ts)', () => {
  const env = () => ({
    ASSISTANT_GATEWAY_URL: openaiGateway,
    ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
    ASSISTANT_EMBEDDINGS_BASE_URL: `${openai.url}/v1`,
  });

  it("reads the assistant's database: the cosine scan with embeddings (no pgvector index here), words without", async () => {
    await new OpenAiChatFakeControl(openai.url).addScript(TOOL_PROBE_MESSAGE, TOOL_CALL);
    const withEmbeddings = await doctor(['--quick'], { ...env(), ASSISTANT_DATABASE_URL: db.server.url });
    expect(withEmbeddings.status).toBe(0);
    expect(withEmbeddings.out).toMatch(
      /\nnote recall by meaning: cosine over every memory's real\[\] embedding \(no index\): /,
    );
    const words = await doctor(['--quick', '--json'], {
      ASSISTANT_GATEWAY_URL: ollamaGateway,
      ASSISTANT_LLM_MODEL: 'qwen3:8b',
      ASSISTANT_DATABASE_URL: db.server.url,
    });
    expect(verdictOf(words).recall).toMatchObject({ path: 'words', indexDimensions: null });
  });

  it('says when the path was not checked: no database setting, or a database that does not answer', async () => {
    const none = await doctor(['--quick', '--json'], env());
    expect(verdictOf(none).recall).toEqual({
      path: 'not checked',
      indexDimensions: null,
      detail: 'no database setting (ASSISTANT_DATABASE_URL, or POSTGRES_PASSWORD of run.sh)',
    });
    const closed = await doctor(['--quick'], {
      ...env(),
      ASSISTANT_DATABASE_URL: `postgres://n8n@127.0.0.1:${closedPort}/assistant`,
      PGPASSWORD: 'doctor-database-password-0123',
    });
    expect(closed.out).toMatch(/note recall by meaning: the path was not checked: the database: .*ECONNREFUSED/);
    expect(closed.out).not.toContain('doctor-database-password-0123');
  });
});
