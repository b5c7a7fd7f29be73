// Benchmark: the model gateway (docs/MODELS.md), on a real Postgres 17 (its ledger; started here, removed after).
//   node_modules/.bin/tsx scripts/bench-gateway.ts [--calls 400]
// 1. Added latency: the same small chat completion straight to the OpenAI-compatible fake and through the gateway,
//    alternating, p50/p99 side by side (the gateway measures, checks the window, queues, forwards, writes the ledger).
// 2. A turn on a CPU-speed Ollama (the fake at 100 prompt tokens/s, 20 output tokens/s, time scaled down and reported
//    back in simulated seconds): an agent-sized prompt (~6,000 tokens of tool schemas) through the gateway, first and
//    second turn, beside the same prompt sent to Ollama's /v1 straight (which cuts it to the 4,096 default window).
// 3. The spending caps' reservation and settlement: the same calls through the gateway without caps and with three
//    caps covering them (instance, user, job), one at a time and 16 at once.
import { cpus, loadavg } from 'node:os';
import { Pool } from 'pg';
import { readGatewaySettings, resolveIdentity, runMigrations, setCap, startGateway, withCaller } from 'assistant-core';
import { startPostgres } from './runtime/postgres';
import { startOpenAiChatFake } from '../test/fakes/openai-chat';
import { OllamaFakeControl, startOllamaFake } from '../test/fakes/ollama';

const KEY = 'bench-gateway-key-0123456789';
const TIME_SCALE = 0.05;

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function post(url: string, key: string, body: unknown): Promise<{ ms: number; json: unknown }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  return { ms: performance.now() - started, json };
}

/** 48 tools of about 500 characters each, like the main agent's (docs/TOOLS.md). */
const agentTools = Array.from({ length: 48 }, (_, i) => ({
  type: 'function',
  function: {
    name: `tool_${i}`,
    description: `Tool ${i}: ${'does one well-described job for the user, with care about its inputs. '.repeat(4)}`,
    parameters: {
      type: 'object',
      properties: { what: { type: 'string', description: 'What to act on, in the user’s words.' } },
      required: ['what'],
    },
  },
}));

/** A gateway on a free port in front of the `llm` provider at `baseUrl`, its ledger in `pool`. */
function benchGateway(pool: Pool, baseUrl: string, env: Record<string, string> = {}) {
  const settings = readGatewaySettings({
    ASSISTANT_GATEWAY_KEY: KEY,
    ASSISTANT_GATEWAY_PORT: '0',
    ASSISTANT_GATEWAY_DATABASE_URL: 'unused',
    ASSISTANT_LLM_BASE_URL: baseUrl,
    ...env,
  });
  return startGateway({ settings, ledger: pool });
}

async function addedLatency(pool: Pool, calls: number) {
  const provider = await startOpenAiChatFake({ apiKey: 'sk-bench' });
  const gateway = await benchGateway(pool, `${provider.url}/v1`, { ASSISTANT_LLM_API_KEY: 'sk-bench' });
  const body = (model: string) => ({ model, messages: [{ role: 'user', content: 'a short question' }] });
  const direct: number[] = [];
  const through: number[] = [];
  for (let i = 0; i < calls + 20; i++) {
    const a = await post(`${provider.url}/v1/chat/completions`, 'sk-bench', body('gpt-4o-mini'));
    const b = await post(
      `${gateway.url}/llm/v1/chat/completions`,
      KEY,
      body(withCaller('gpt-4o-mini', { job: 'bench' })),
    );
    if (i < 20) continue; // the first 20 warm up
    direct.push(a.ms);
    through.push(b.ms);
  }
  await gateway.flushed();
  await gateway.close();
  await provider.close();
  return { direct, through };
}

async function ollamaTurns(pool: Pool) {
  const model = 'qwen2.5:7b-instruct';
  const fake = await startOllamaFake({
    models: [{ name: model, family: 'qwen2', contextLength: 32_768, parameterSize: '7.6B' }],
    promptTokensPerSecond: 100,
    outputTokensPerSecond: 20,
    timeScale: TIME_SCALE,
  });
  const control = new OllamaFakeControl(fake.url);
  const gateway = await benchGateway(pool, `${fake.url}/v1`);
  const system = { role: 'system', content: 'You are a helpful assistant. Use the tools when they help.' };
  const first = [system, { role: 'user', content: 'What is on my list today?' }];
  const second = [
    ...first,
    { role: 'assistant', content: 'Nothing is due today.' },
    { role: 'user', content: 'And tomorrow?' },
  ];
  const rows: Array<[string, number, number, number, boolean]> = [];
  // Warm-up: creates the derived model and loads it (not timed).
  await post(`${gateway.url}/llm/v1/chat/completions`, KEY, {
    model: withCaller(model, { job: 'bench' }),
    messages: [system],
  });
  for (const [name, messages] of [
    ['first turn', first],
    ['second turn', second],
  ] as const) {
    const { ms } = await post(`${gateway.url}/llm/v1/chat/completions`, KEY, {
      model: withCaller(model, { job: 'agent' }),
      messages,
      tools: agentTools,
    });
    const seen = (await control.requests()).at(-1)!;
    rows.push([
      `gateway → /api/chat, ${name}`,
      ms / TIME_SCALE / 1000,
      seen.promptEvalCount,
      seen.cachedTokens,
      seen.cut !== null,
    ]);
  }
  await control.reset();
  for (const [name, messages] of [
    ['first turn', first],
    ['second turn', second],
  ] as const) {
    const { ms } = await post(`${fake.url}/v1/chat/completions`, 'ollama', { model, messages, tools: agentTools });
    const seen = (await control.requests()).at(-1)!;
    rows.push([
      `straight to /v1, ${name}`,
      ms / TIME_SCALE / 1000,
      seen.promptEvalCount,
      seen.cachedTokens,
      seen.cut !== null,
    ]);
  }
  await gateway.close();
  await fake.close();
  return rows;
}

async function capsOverhead(pool: Pool, calls: number) {
  const provider = await startOpenAiChatFake({ apiKey: 'sk-bench' });
  const gateway = await benchGateway(pool, `${provider.url}/v1`, {
    ASSISTANT_LLM_API_KEY: 'sk-bench',
    ASSISTANT_MODEL_PRICES: 'bench-model=1/0.5/4',
  });
  const user = (await resolveIdentity(pool, 'api', 'bench-user')).userId;
  const body = {
    model: withCaller('bench-model', { job: 'agent', user }),
    messages: [{ role: 'user', content: 'hi' }],
  };
  const url = `${gateway.url}/llm/v1/chat/completions`;
  const timed = async (concurrency: number) => {
    const latencies: number[] = [];
    for (let i = 0; i < calls / concurrency; i++) {
      const batch = await Promise.all(Array.from({ length: concurrency }, () => post(url, KEY, body)));
      latencies.push(...batch.map((r) => r.ms));
    }
    return latencies;
  };
  await timed(1); // warm-up
  const results: Array<[string, number[]]> = [];
  results.push(['no caps, one at a time', await timed(1)]);
  results.push(['no caps, 16 at once', await timed(16)]);
  await setCap(pool, { scope: 'instance', period: 'day', limitUsd: 1000 });
  await setCap(pool, { scope: 'user', userId: user, period: 'month', limitUsd: 1000 });
  await setCap(pool, { scope: 'job', job: 'agent', period: 'day', limitTokens: 1e9 });
  results.push(['3 caps, one at a time', await timed(1)]);
  results.push(['3 caps, 16 at once', await timed(16)]);
  await gateway.flushed();
  await gateway.close();
  await provider.close();
  return results;
}

async function main() {
  const calls = argument('calls', 400);
  const postgres = await startPostgres({ database: 'bench' });
  const pool = new Pool({ connectionString: postgres.url, max: 4 });
  pool.on('error', () => undefined); // connections closing as Postgres stops at the end
  try {
    await runMigrations(pool);
    const { direct, through } = await addedLatency(pool, calls);
    const turns = await ollamaTurns(pool);
    const caps = await capsOverhead(pool, calls);
    console.log(
      `machine: ${cpus().length} × ${cpus()[0].model}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`\n| ${calls} small chat calls | p50 ms | p99 ms |\n| --- | ---: | ---: |`);
    for (const [name, values] of [
      ['straight to the provider (fake)', direct],
      ['through the gateway', through],
    ] as const)
      console.log(`| ${name} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 99).toFixed(2)} |`);
    console.log(
      `| added by the gateway | ${(percentile(through, 50) - percentile(direct, 50)).toFixed(2)} | ${(percentile(through, 99) - percentile(direct, 99)).toFixed(2)} |`,
    );
    console.log(
      '\n| Ollama at 100 prompt tokens/s | wall time (simulated s) | prompt tokens read | of them cached | cut |',
    );
    console.log('| --- | ---: | ---: | ---: | --- |');
    for (const [name, seconds, tokens, cached, cut] of turns)
      console.log(`| ${name} | ${seconds.toFixed(1)} | ${tokens} | ${cached} | ${cut ? 'yes' : 'no'} |`);
    console.log(`\n| ${calls} calls through the gateway | p50 ms | p99 ms |\n| --- | ---: | ---: |`);
    for (const [name, values] of caps)
      console.log(`| ${name} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 99).toFixed(2)} |`);
  } finally {
    await pool.end();
    await postgres.stop();
  }
}

void main();
