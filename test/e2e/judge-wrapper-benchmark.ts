// Benchmark: the /webhook/v1/systemone wrapper workflow on n8n vs the judge server it wraps, side by side in
// one run, over the same request. Not part of the test suite (performance is never asserted in tests).
//   npm run build && npx tsx test/e2e/judge-wrapper-benchmark.ts [--seconds 10] [--connections 8] [--samples 300]
// It starts its own stack (Postgres 17 + n8n 2.41.1 with the runtime's performance settings), the judge server
// on the deterministic fake OpenAI logprobs server, measures, prints a Markdown table, and stops everything.
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';

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
  workers?: number;
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

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function throughput(target: Target): Promise<{ rps: number; errors: number; p50: number }> {
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
    body,
    connections,
    duration: seconds,
    // The load generator in its own thread, so it does not share an event loop with the in-process judge server.
    workers: 1,
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx, p50: result.latency.p50 };
}

/** Creates and activates Webhook → Respond to Webhook (expression-free, executions not saved); returns its path. */
async function createFloorWorkflow(stack: Awaited<ReturnType<typeof startStack>>): Promise<string> {
  const path = 'bench-floor';
  const workflow = await stack.api<{ id: string }>('/workflows', {
    method: 'POST',
    body: {
      name: 'Benchmark: webhook → respond (n8n floor)',
      settings: {
        executionOrder: 'v1',
        saveDataSuccessExecution: 'none',
        saveDataErrorExecution: 'none',
        saveManualExecutions: false,
      },
      nodes: [
        {
          id: 'f1',
          name: 'Webhook',
          type: 'n8n-nodes-base.webhook',
          typeVersion: 2.1,
          position: [0, 0],
          webhookId: '6f2d3c4b-0000-4000-8000-00000000f100',
          parameters: { httpMethod: 'POST', path, responseMode: 'responseNode', options: {} },
        },
        {
          id: 'f2',
          name: 'Respond',
          type: 'n8n-nodes-base.respondToWebhook',
          typeVersion: 1.5,
          position: [200, 0],
          parameters: { respondWith: 'firstIncomingItem', options: {} },
        },
      ],
      connections: { Webhook: { main: [[{ node: 'Respond', type: 'main', index: 0 }]] } },
    },
  });
  await stack.api(`/workflows/${workflow.id}/activate`, { method: 'POST' });
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const machineLoad = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

async function main() {
  const loadAtStart = machineLoad();
  const judge = await systemOneJudgeFake.start();
  // Its own task-broker port, so it can run beside another n8n (the default 5679 is shared otherwise).
  const env = { E2E_SYSTEMONE_JUDGE_URL: judge.url, N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
  const stack = await startStack({ env, log: (line) => console.error(`[stack] ${line}`) });
  try {
    const direct: Target = { name: 'judge server', url: `${judge.url}/v1/systemone`, key: E2E_JUDGE_KEY };
    const wrapper: Target = { name: 'n8n wrapper', url: `${stack.webhookUrl}/v1/systemone`, key: E2E_WRAPPER_KEY };
    // n8n's own floor: the same webhook → Respond to Webhook, without the Judge node (and without the judge).
    const floorPath = await createFloorWorkflow(stack);
    const floor: Target = {
      name: 'n8n webhook → respond only',
      url: `${stack.webhookUrl}/${floorPath}`,
      key: 'unused',
    };
    const targets = [direct, floor, wrapper];
    // Warm-up (also waits out the webhook's registration just after activation).
    for (let i = 0; i < 200; i++) {
      try {
        await once(wrapper);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    for (let i = 0; i < 200; i++) {
      try {
        await once(floor);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    for (let i = 0; i < 30; i++) for (const target of targets) await once(target);

    // Latency: one request at a time, alternating, so both see the same machine load.
    const latencies: Record<string, number[]> = Object.fromEntries(targets.map((target) => [target.name, []]));
    for (let i = 0; i < samples; i++) {
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) latencies[target.name].push(await once(target));
    }
    // Throughput: `connections` concurrent clients for `seconds` each.
    const load: Record<string, Awaited<ReturnType<typeof throughput>>> = {};
    for (const target of targets) load[target.name] = await throughput(target);

    const rows = targets.map((target) => {
      const sorted = [...latencies[target.name]].sort((a, b) => a - b);
      const { rps, errors, p50: loadP50 } = load[target.name];
      return { name: target.name, p50: percentile(sorted, 50), p95: percentile(sorted, 95), rps, errors, loadP50 };
    });
    const [server, n8nFloor, n8n] = rows;
    console.log(
      `${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}; load average (1/5/15 min) ` +
        `${loadAtStart} at start, ${machineLoad()} at the end\n`,
    );
    console.log(
      `| path | p50 (ms, sequential) | p95 (ms, sequential) | req/s (${connections} connections, ${seconds} s) | p50 under load (ms) | errors |`,
    );
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const row of rows) {
      const cells = [
        row.name,
        row.p50.toFixed(1),
        row.p95.toFixed(1),
        row.rps.toFixed(1),
        row.loadP50.toFixed(0),
        String(row.errors),
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
    console.log(
      `\nn8n adds ${(n8n.p50 - server.p50).toFixed(1)} ms at p50 and ${(n8n.p95 - server.p95).toFixed(1)} ms at p95 ` +
        `(${samples} sequential samples each); the wrapper sustains ${n8n.rps.toFixed(1)} req/s vs ${server.rps.toFixed(1)} direct.\n` +
        `Of the p50 overhead, n8n's bare webhook → respond accounts for ${n8nFloor.p50.toFixed(1)} ms; the Judge node's ` +
        `pass-through (key check, credentials, HTTP call) for the remaining ${(n8n.p50 - server.p50 - n8nFloor.p50).toFixed(1)} ms.`,
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
