// The built CLI (judge/dist/cli/main.js, produced by `npm run build`): serve with SIGTERM shutdown, and ask.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemOneResponse } from '../../src/protocol/types';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';

const BIN = path.resolve(__dirname, '..', '..', 'dist', 'cli', 'main.js');
let fake: FakeOpenAI;

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build -w systemone-judge" first`);
  fake = await startFakeOpenAI();
});
afterAll(async () => fake.close());

function run(args: string[], env: Record<string, string>, stdin?: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  if (stdin !== undefined) child.stdin.end(stdin);
  else child.stdin.end();
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return { child, done, out: () => stdout, err: () => stderr };
}

const backendEnv = () => ({
  JUDGE_BACKEND: 'openai',
  JUDGE_OPENAI_BASE_URL: fake.baseUrl,
  JUDGE_OPENAI_MODEL: 'fake-model',
  JUDGE_OPENAI_MODEL_ID: 'judge-fake-2026-01-01',
});

describe('systemone-judge CLI', () => {
  it('serve: listens, answers, logs one JSON line per request, and drains on SIGTERM', async () => {
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1'], { ...backendEnv(), JUDGE_API_KEYS: 'cli-key' });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening on (http:\/\/[^\s]+)/.exec(serve.err());
        if (match) {
          clearInterval(timer);
          resolve(match[1]);
        }
      }, 20);
      serve.done.then((code) => (clearInterval(timer), reject(new Error(`serve exited ${code}: ${serve.err()}`))));
    });
    const response = await fetch(`${url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: 'Bearer cli-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'jev-latest',
        state: 'secret state words',
        questions: { q: { type: 'noul', instructions: 'ok?' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as SystemOneResponse).model).toBe('judge-fake-2026-01-01');
    // The scoring method is probed at start, in the background.
    await expect
      .poll(() => serve.err(), { interval: 20, timeout: 10_000 })
      .toContain('model judge-fake-2026-01-01 is scored by top_logprobs (calibrated)');
    serve.child.kill('SIGTERM');
    expect(await serve.done).toBe(0);
    const lines = serve
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ path: '/v1/systemone', status: 200, model: 'judge-fake-2026-01-01' });
    expect(serve.out()).not.toContain('secret state words');
  });

  it('ask: --state and --question, printing the response', async () => {
    const ask = run(
      ['ask', '--state', 'The door is open.', '--question', 'open={"type":"noul","instructions":"Is the door open?"}'],
      backendEnv(),
    );
    expect(await ask.done).toBe(0);
    const body = JSON.parse(ask.out()) as SystemOneResponse;
    expect(body.model).toBe('judge-fake-2026-01-01');
    expect(body.answers.open.type).toBe('noul');
  });

  it('ask: --request - from stdin; bad input exits 1 with the 422 detail', async () => {
    const good = run(
      ['ask', '--request', '-'],
      backendEnv(),
      JSON.stringify({ state: 's', questions: { c: { type: 'choice', criteria: { x: null, y: null } } } }),
    );
    expect(await good.done).toBe(0);
    expect(Object.keys((JSON.parse(good.out()) as SystemOneResponse).answers)).toEqual(['c']);
    const bad = run(
      ['ask', '--request', '-'],
      backendEnv(),
      JSON.stringify({ state: 's', questions: { c: { type: 'choice' } } }),
    );
    expect(await bad.done).toBe(1);
    expect(bad.err()).toMatch(/422 .*"loc":\["body","questions","c","criteria"\]/);
  });

  it('usage and config errors are one clear line, never a stack trace', async () => {
    const unknown = run(['frobnicate'], {});
    expect(await unknown.done).toBe(2);
    expect(unknown.err()).toMatch(/unknown command "frobnicate"/);
    const noKeys = run(['serve', '--port', '0'], backendEnv());
    expect(await noKeys.done).toBe(1);
    expect(noKeys.err()).toMatch(/config apiKeys: no API key configured/);
    expect(noKeys.err()).not.toMatch(/\n\s+at /);
  });
});
