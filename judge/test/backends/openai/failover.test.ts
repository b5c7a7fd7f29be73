// Failover: several upstream servers (JUDGE_OPENAI_BASE_URL as a comma-separated list) used in order by health. A
// server that refuses connections is skipped for the cool-down and asked again once it is over (the clock is
// injected and moved by the test); the caller's request id goes upstream as X-Request-Id.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIBackend } from '../../../src/backends/openai';
import { ConfigError, parseConfig } from '../../../src/config';
import { JudgeEngine } from '../../../src/engine/engine';
import { startJudgeServer, type JudgeServer } from '../../../src/server';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-logprobs';

const ID = 'judge-openai-fake-2026-01-01';
const KEY = 'failover-test-key-abcdef';
const COOLDOWN_MS = 30_000;
let fakes: FakeOpenAI[] = [];
let server: JudgeServer | undefined;
afterEach(async () => {
  await server?.close();
  await Promise.all(fakes.map((fake) => fake.close()));
  fakes = [];
  server = undefined;
});

/** A loopback port nothing listens on: connections to it are refused. */
async function refusingPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const request = { model: ID, state: 'The sky is blue.', questions: { sky: { type: 'noul', instructions: 'Blue?' } } };

describe('failover between upstream servers', () => {
  it('skips a server refusing connections for the cool-down, then asks it again', async () => {
    const port = await refusingPort();
    const secondary = await startFakeOpenAI();
    fakes.push(secondary);
    let clock = 1_000_000;
    const backend = new OpenAIBackend({
      baseUrl: `http://127.0.0.1:${port}/v1, ${secondary.baseUrl}`,
      upstreamModel: 'fake-model',
      id: ID,
      maxRetries: 0,
      failoverCooldownMs: COOLDOWN_MS,
      now: () => clock,
    });
    const engine = new JudgeEngine({ backend });
    const ask = async (requestId: string) => engine.answerJob({ ...(await engine.prepare(request)), requestId });

    await ask('req-1');
    expect(secondary.requestIds).toEqual(['req-1']);
    expect(backend.upstreamHealth()).toEqual([
      { baseUrl: `http://127.0.0.1:${port}/v1`, healthy: false },
      { baseUrl: secondary.baseUrl, healthy: true },
    ]);

    // The first server comes back, but within the cool-down it is not asked.
    const primary = await startFakeOpenAI({ port });
    fakes.push(primary);
    clock += COOLDOWN_MS - 1;
    await ask('req-2');
    expect(primary.requests).toHaveLength(0);
    expect(secondary.requestIds).toEqual(['req-1', 'req-2']);

    // After it, the first server is first again.
    clock += 1;
    await ask('req-3');
    expect(primary.requestIds).toEqual(['req-3']);
    expect(secondary.requestIds).toEqual(['req-1', 'req-2']);
    expect(backend.upstreamHealth().every((server) => server.healthy)).toBe(true);
  });

  it('with every server down the call fails with 502, naming the last server asked', async () => {
    const [a, b] = [await refusingPort(), await refusingPort()];
    const backend = new OpenAIBackend({
      baseUrl: `http://127.0.0.1:${a}/v1,http://127.0.0.1:${b}/v1`,
      upstreamModel: 'fake-model',
      id: ID,
      maxRetries: 0,
      now: () => 0,
    });
    const failed = new JudgeEngine({ backend }).judge(request);
    await expect(failed).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
    await expect(failed).rejects.toThrow(`http://127.0.0.1:${b}/v1`);
  });

  it("passes the judge's request id upstream as X-Request-Id", async () => {
    const fake = await startFakeOpenAI();
    fakes.push(fake);
    server = await startJudgeServer({
      apiKeys: [KEY],
      backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'fake-model', id: ID },
      log: () => undefined,
    });
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-request-id': 'abc-123' },
      body: JSON.stringify(request),
    });
    expect(response.status).toBe(200);
    expect(fake.requestIds).toEqual(['abc-123']);
  });

  it.each([
    ['http://a/v1,ftp://b/v1', 'JUDGE_OPENAI_BASE_URL: entry 2 "ftp://b/v1" is not an http(s) URL'],
    ['http://a/v1,,http://b/v1', 'JUDGE_OPENAI_BASE_URL: has an empty entry (2)'],
    ['http://a/v1,http://a/v1', 'JUDGE_OPENAI_BASE_URL: lists "http://a/v1" twice'],
    ['not a url', 'JUDGE_OPENAI_BASE_URL: "not a url" is not a URL'],
  ])('refuses JUDGE_OPENAI_BASE_URL=%s, naming the variable', (value, message) => {
    const config = { apiKeys: ['k'], backend: { kind: 'openai', baseUrl: 'http://x/v1', upstreamModel: 'm', id: ID } };
    expect(() => parseConfig(config, { JUDGE_OPENAI_BASE_URL: value })).toThrow(ConfigError);
    expect(() => parseConfig(config, { JUDGE_OPENAI_BASE_URL: value })).toThrow(message);
  });

  it('reads a list of URLs from the file and the cool-down from the environment', () => {
    const backend = { kind: 'openai', baseUrl: ['http://a/v1', 'http://b/v1'], upstreamModel: 'm', id: ID };
    const config = parseConfig({ apiKeys: ['k'], backend }, { JUDGE_OPENAI_FAILOVER_COOLDOWN_MS: '5000' });
    expect(config.backend).toMatchObject({ baseUrl: 'http://a/v1,http://b/v1', failoverCooldownMs: 5000 });
    expect(() => parseConfig({ apiKeys: ['k'], backend }, { JUDGE_OPENAI_FAILOVER_COOLDOWN_MS: 'soon' })).toThrow(
      'JUDGE_OPENAI_FAILOVER_COOLDOWN_MS',
    );
  });
});
