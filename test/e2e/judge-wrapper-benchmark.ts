// Benchmark: the /webhook/v1/systemone wrapper workflow on n8n vs the judge server it wraps, side by side in
// one run, over the same request. Not part of the test suite (performance is never asserted in tests).
//   npm run build && npx tsx test/e2e/judge-wrapper-benchmark.ts [--seconds 10] [--connections 8] [--samples 300]
// It starts its own stack (Postgres 17 + n8n 2.41.1 with the runtime's performance settings), the judge server
// on the deterministic fake OpenAI logprobs server, measures, prints a Markdown table, and stops everything.
import { createRequire } from 'node:module';

import { startStack } from '../../scripts/runtime/stack';
import { E2E_JUDGE_KEY, E2E_WRAPPER_KEY, systemOneJudgeFake } from './setup/systemone-judge';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number };
  errors: number;
  non2xx: number;
}
type Autocannon = (options: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;
// autocannon ships without type declarations.
const autocannon = createRequire(__filename)('autocannon') as Autocannon;

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const seconds = argument('seconds', 10);
const connections = argument('connections', 8);
const samples = argument('samples', 300);

const body = JSON.stringify({
  model: 'jev-latest',
  state: { ticket: 'I was charged twice for my subscription. Please fix this today!', plan: 'pro' },
  questions: {
    urgent: { type: 'noul', instructions: 'Does the customer need an answer today?' },
    topic: { type: 'choice', criteria: { billing: 'payments', bug: null, other: null } },
    anger: { type: 'score', criteria: ['calm', 'annoyed', 'angry'] },
  },
});

interface Target {
  name: string;
  url: string;
  key: string;
}

async function once(target: Target): Promise<number> {
  const started = performance.now();
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
    body,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${target.name}: HTTP ${response.status}`);
  return performance.now() - started;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function throughput(target: Target): Promise<{ rps: number; errors: number; p50: number }> {
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
    body,
    connections,
    duration: seconds,
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx, p50: result.latency.p50 };
}

async function main() {
  const judge = await systemOneJudgeFake.start();
  const stack = await startStack({ env: { E2E_SYSTEMONE_JUDGE_URL: judge.url }, log: (line) => console.error(`[stack] ${line}`) });
  try {
    const direct: Target = { name: 'judge server', url: `${judge.url}/v1/systemone`, key: E2E_JUDGE_KEY };
    const wrapper: Target = { name: 'n8n wrapper', url: `${stack.webhookUrl}/v1/systemone`, key: E2E_WRAPPER_KEY };
    // Warm-up (also waits out the webhook's registration just after activation).
    for (let i = 0; i < 200; i++) {
      try {
        await once(wrapper);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    for (let i = 0; i < 30; i++) await Promise.all([once(direct), once(wrapper)]);

    // Latency: one request at a time, alternating, so both see the same machine load.
    const latencies: Record<string, number[]> = { [direct.name]: [], [wrapper.name]: [] };
    for (let i = 0; i < samples; i++) {
      for (const target of i % 2 === 0 ? [direct, wrapper] : [wrapper, direct]) latencies[target.name].push(await once(target));
    }
    // Throughput: `connections` concurrent clients for `seconds` each.
    const load = { [direct.name]: await throughput(direct), [wrapper.name]: await throughput(wrapper) };

    const rows = [direct, wrapper].map((target) => {
      const sorted = [...latencies[target.name]].sort((a, b) => a - b);
      const { rps, errors, p50: loadP50 } = load[target.name];
      return { name: target.name, p50: percentile(sorted, 50), p95: percentile(sorted, 95), rps, errors, loadP50 };
    });
    const [server, n8n] = rows;
    console.log(`| path | p50 (ms, sequential) | p95 (ms, sequential) | req/s (${connections} connections, ${seconds} s) | p50 under load (ms) | errors |`);
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const row of rows) {
      const cells = [row.name, row.p50.toFixed(1), row.p95.toFixed(1), row.rps.toFixed(1), row.loadP50.toFixed(0), String(row.errors)];
      console.log(`| ${cells.join(' | ')} |`);
    }
    console.log(
      `\nn8n adds ${(n8n.p50 - server.p50).toFixed(1)} ms at p50 and ${(n8n.p95 - server.p95).toFixed(1)} ms at p95 ` +
        `(${samples} sequential samples each); the wrapper sustains ${n8n.rps.toFixed(1)} req/s vs ${server.rps.toFixed(1)} direct.`,
    );
  } finally {
    await stack.stop();
    await judge.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
