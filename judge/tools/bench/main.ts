// npm run bench -w systemone-judge: the server's overhead over the engine, with an instant backend, in one run.
//   engine only      — engine.judge() called in a loop, in-process;
//   server, 1 conn   — the same body over loopback HTTP (keep-alive) to the server in a child process;
//   server, 16 conns — autocannon against the same server, for throughput.
// Writes the table to the "Judge server" section of docs/BENCHMARKS.md (pass --no-write to only print it).
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import path from 'node:path';
import { DEFAULT_ALIAS, JudgeEngine } from '../../src/engine/engine';
import { startJudgeServer } from '../../src/server';
import { InstantBackend } from './instant-backend';

const KEY = 'bench-key';
const SECTION = '## Judge server';
const ITERATIONS = 3000;
const WARMUP = 300;
const AUTOCANNON_SECONDS = 5;

const body = JSON.stringify({
  model: DEFAULT_ALIAS,
  state: {
    subject: 'Refund request for a duplicate charge',
    body: 'I was charged twice for my March invoice. '.repeat(20),
    customer: { plan: 'pro', seats: 12, since: '2023-04-01' },
  },
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: {
      type: 'choice',
      instructions: 'Which team handles it?',
      criteria: { billing: 'invoices', tech: null, sales: null, legal: null },
    },
    anger: {
      type: 'score',
      instructions: 'How upset is the customer?',
      criteria: ['calm', 'mild', 'annoyed', 'angry', 'furious'],
    },
  },
});

interface Row {
  name: string;
  p50: number;
  p99: number;
  rps: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarise(name: string, latencies: number[], seconds: number): Row {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { name, p50: percentile(sorted, 50), p99: percentile(sorted, 99), rps: latencies.length / seconds };
}

async function benchEngine(): Promise<Row> {
  const engine = new JudgeEngine({ backend: new InstantBackend() });
  const parsed = () => JSON.parse(body);
  for (let i = 0; i < WARMUP; i++) await engine.judge(parsed());
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    // Parse + validate + render + score + read out: what the server does minus HTTP.
    JSON.stringify((await engine.judge(parsed())).response);
    latencies.push(performance.now() - t);
  }
  return summarise('engine only (in-process, sequential)', latencies, (performance.now() - start) / 1000);
}

function post(url: URL, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/systemone',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function benchServerSequential(url: URL): Promise<Row> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < WARMUP; i++) await post(url, agent);
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    const status = await post(url, agent);
    if (status !== 200) throw new Error(`server answered ${status}`);
    latencies.push(performance.now() - t);
  }
  agent.destroy();
  return summarise('server, 1 connection (loopback, keep-alive)', latencies, (performance.now() - start) / 1000);
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { average: number };
  non2xx: number;
  errors: number;
}

async function benchServerConcurrent(url: URL): Promise<Row> {
  // autocannon ships no types; its programmatic API returns a promise of the result.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = require('autocannon') as (options: object) => Promise<AutocannonResult>;
  const result = await autocannon({
    url: `${url.origin}/v1/systemone`,
    method: 'POST',
    connections: 16,
    duration: AUTOCANNON_SECONDS,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`autocannon saw ${result.non2xx} non-2xx and ${result.errors} errors`);
  return {
    name: 'server, 16 connections (autocannon)',
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
  };
}

function table(rows: Row[]): string {
  const base = rows[0];
  const lines = [
    '| path | p50 ms | p99 ms | req/s | p50 over engine |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${Math.round(r.rps)} | ${(r.p50 / base.p50).toFixed(1)}× |`,
    ),
  ];
  return lines.join('\n');
}

function writeSection(markdown: string): string {
  const file = path.resolve(__dirname, '..', '..', '..', 'docs', 'BENCHMARKS.md');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  const start = text.indexOf(`${SECTION}\n`);
  if (start === -1) text = `${text.trimEnd()}\n\n${markdown}\n`;
  else {
    const next = text.indexOf('\n## ', start + SECTION.length);
    text = text.slice(0, start) + markdown + '\n' + (next === -1 ? '' : text.slice(next + 1));
  }
  writeFileSync(file, text);
  return file;
}

async function serveChild(): Promise<void> {
  const server = await startJudgeServer({ apiKeys: [KEY], backend: new InstantBackend(), log: () => undefined });
  process.send?.({ url: server.url });
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

async function main(): Promise<void> {
  const child = fork(__filename, ['--serve-child'], { stdio: 'inherit' });
  try {
    const url = new URL(
      await new Promise<string>((resolve, reject) => {
        child.once('message', (m: { url: string }) => resolve(m.url));
        child.once('exit', (code) => reject(new Error(`server child exited ${code}`)));
      }),
    );
    const engine = await benchEngine();
    const sequential = await benchServerSequential(url);
    const concurrent = await benchServerConcurrent(url);
    const markdown = [
      SECTION,
      '',
      `\`npm run bench -w systemone-judge\` — one run, side by side, on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}.`,
      'An instant backend (fixed scores, no model) isolates the cost of parsing, validation, rendering, read-out and HTTP.',
      `Body: a ~1 KB JSON state with 3 questions (noul, 4-option choice, 5-level score). ${ITERATIONS} sequential requests after ${WARMUP} warm-up;`,
      `autocannon runs ${AUTOCANNON_SECONDS} s with 16 connections against the server in its own process (autocannon reports whole milliseconds).`,
      'The machine is shared, so absolute numbers are noisy; the ratios within this one run are what matters.',
      '',
      table([engine, sequential, concurrent]),
      '',
      `Run at ${new Date().toISOString()}.`,
    ].join('\n');
    process.stdout.write(markdown + '\n');
    if (!process.argv.includes('--no-write')) process.stdout.write(`written to ${writeSection(markdown)}\n`);
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv.includes('--serve-child')) void serveChild();
else
  main().catch((error) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
