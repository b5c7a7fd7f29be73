// Benchmark: POST /webhook/agent → reply, on the real n8n + Postgres 17, with an instant fake LLM. Not part of the
// test suite (performance is never asserted in tests).
//   npm run build && npx tsx test/e2e/assistant-round-trip-benchmark.ts [--samples 100]
// Three paths, interleaved, sequential requests on one connection, in one run:
//   rejected   — a wrong API key, refused by the Assistant Trigger before any execution (the entry's floor);
//   answer     — the message stored, the run started and its reply awaited: context, AI Agent, one LLM call;
//   tool call  — as above, with the model calling remember_memory (a sub-workflow) before answering.
import { createServer } from 'node:net';
import { Pool } from 'pg';
import { startStack } from '../../scripts/runtime/stack';
import { runMigrations } from 'assistant-core';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { assistantFakes } from '../fakes/assistant-e2e-fakes';
import { postgresCredentialData } from './setup/postgres-credential';

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0 || value > 2000)
    throw new Error(`--${name} must be an integer from 1 to 2000`);
  return value;
};
const samples = argument('samples', 100);
const API_KEY = 'bench-assistant-api-key';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function main(): Promise<void> {
  const fakes = await Promise.all(assistantFakes.map((fake) => fake.start()));
  const stack = await startStack({ env: { N8N_RUNNERS_BROKER_PORT: String(await freePort()) } });
  try {
    const api = (path: string, body: unknown) =>
      fetch(`${stack.n8nUrl}/api/v1${path}`, {
        method: 'PATCH',
        headers: { 'X-N8N-API-KEY': stack.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await api('/credentials/asstApiKeyHdr001', { data: { name: 'X-API-Key', value: API_KEY } });
    await api('/credentials/asstPostgresDb01', {
      data: postgresCredentialData(stack.postgres.url),
    });
    const db = new Pool({ connectionString: stack.postgres.url, max: 1 });
    await runMigrations(db);
    await db.end();
    const llm = new OpenAiChatFakeControl(fakes[0].url);
    await llm.addScript('[bench-tool]', [
      { tool_calls: [{ name: 'remember_memory', arguments: { content: 'The benchmark ran.', people: '' } }] },
      { content: 'Noted.' },
    ]);

    const call = async (key: string, message: string, expected: number): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${stack.webhookUrl}/agent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ message, user_id: 'bench', session_id: 'bench' }),
      });
      await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== expected) throw new Error(`expected HTTP ${expected}, got ${response.status}`);
      return elapsed;
    };
    const paths: Array<{ name: string; run: () => Promise<number>; times: number[] }> = [
      { name: 'rejected (wrong key → 403 JSON)', run: () => call('wrong-key', 'hello', 403), times: [] },
      { name: 'answer (instant LLM, no tool)', run: () => call(API_KEY, 'What time is it?', 200), times: [] },
      {
        name: 'tool call (remember_memory, then answer)',
        run: () => call(API_KEY, '[bench-tool] remember that the benchmark ran', 200),
        times: [],
      },
    ];
    for (const path of paths) for (let i = 0; i < 10; i++) await path.run(); // warm-up
    for (let i = 0; i < samples; i++) for (const path of paths) path.times.push(await path.run());

    const floor = percentile(paths[0].times, 50);
    const rows = paths.map((path) => {
      const p50 = percentile(path.times, 50);
      return `| ${path.name} | ${p50.toFixed(1)} | ${percentile(path.times, 95).toFixed(1)} | ${(p50 / floor).toFixed(1)}× |`;
    });
    console.log(['| path | p50 ms | p95 ms | p50 over rejected |', '| --- | ---: | ---: | ---: |', ...rows].join('\n'));
    console.log(
      `\n${samples} sequential requests per path, interleaved, after 10 warm-up each; run at ${new Date().toISOString()}.`,
    );
  } finally {
    await stack.stop();
    for (const fake of fakes) await fake.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
