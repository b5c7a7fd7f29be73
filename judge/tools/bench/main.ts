// npm run bench -w systemone-judge: the judge server against a bare node:http floor doing the same JSON work, with an
// instant backend (fixed scores, no model), side by side and interleaved, in one run.
//   engine only      — engine.judge() in a loop, in-process (what the server does minus HTTP);
//   floor / server, 1 connection   — sequential requests over loopback (keep-alive), timed here to the microsecond;
//   floor / server, 16 connections — autocannon, for throughput (it reports whole milliseconds).
// The server runs as in production: a key from a key file store (with limits, so they are checked), usage recorded
// and written behind, one JSON log line per request on stdout (sent to /dev/null). Each round measures every path
// once, in alternating order; each figure is the median of the rounds, with the range.
// Writes the tables between the markers of the "Judge server" section of docs/BENCHMARKS.md (--no-write: print only).
//   --rounds N (default 5), --profile (CPU profile of the server child into .runtime/profiles, then exit)
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ALIAS, JudgeEngine } from '../../src/engine/engine';
import { FileKeyStore } from '../../src/keys/file-store';
import { generateKey } from '../../src/keys/format';
import { startJudgeServer } from '../../src/server';
import { startFloorServer } from './floor-server';
import { InstantBackend } from './instant-backend';
import { writeGenerated } from './markers';

const SEQUENTIAL = 1000;
const WARMUP = 300;
const AUTOCANNON_SECONDS = 3;
const CONNECTIONS = 16;
const REPO = path.resolve(__dirname, '..', '..', '..');

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

interface Latencies {
  p50: number;
  p99: number;
  rps: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarise(latencies: number[], seconds: number): Latencies {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), rps: latencies.length / seconds };
}

async function benchEngine(engine: JudgeEngine): Promise<Latencies> {
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now();
    // Parse + validate + render + score + read out + serialise: what the server does minus HTTP.
    JSON.stringify((await engine.judge(JSON.parse(body))).response);
    latencies.push(performance.now() - t);
  }
  return summarise(latencies, (performance.now() - start) / 1000);
}

function post(url: URL, agent: Agent, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/systemone',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${key}`,
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

async function benchSequential(url: URL, key: string, count: number): Promise<Latencies> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const status = await post(url, agent, key);
    if (status !== 200) throw new Error(`${url.origin} answered ${status}`);
    latencies.push(performance.now() - t);
  }
  agent.destroy();
  return summarise(latencies, (performance.now() - start) / 1000);
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { average: number };
  non2xx: number;
  errors: number;
}

async function benchConcurrent(url: URL, key: string): Promise<Latencies> {
  // autocannon ships no types; its programmatic API returns a promise of the result.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = require('autocannon') as (options: object) => Promise<AutocannonResult>;
  const result = await autocannon({
    url: `${url.origin}/v1/systemone`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: AUTOCANNON_SECONDS,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`autocannon saw ${result.non2xx} non-2xx and ${result.errors} errors at ${url.origin}`);
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average };
}

// ---------- the two servers, each in its own process ----------

type ChildKind = 'judge' | 'floor';

interface ChildMessage {
  url: string;
  key: string;
}

/** The judge as in production: a key file store with one limited key, usage recorded, logs on stdout. */
async function serveJudge(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'judge-bench-'));
  const store = new FileKeyStore(path.join(dir, 'keys.json'));
  const { key, record } = generateKey('bench', {
    ratePerSecond: 1_000_000,
    tokensPerMinute: 1e12,
    monthlyTokens: 1e15,
  });
  await store.addKey(record);
  const server = await startJudgeServer({
    apiKeys: ['env-key-not-used-by-the-bench'],
    backend: new InstantBackend(),
    keys: { store: { kind: 'file', file: store.file } },
  });
  process.send?.({ url: server.url, key } satisfies ChildMessage);
  process.once(
    'SIGTERM',
    () =>
      void server.close().then(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
}

async function serveFloor(): Promise<void> {
  const answer = (await new JudgeEngine({ backend: new InstantBackend() }).judge(JSON.parse(body))).response;
  const { url, server } = await startFloorServer(answer);
  process.send?.({ url, key: 'none' } satisfies ChildMessage);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

function startChild(kind: ChildKind, execArgv: string[] = []): Promise<{ child: ChildProcess } & ChildMessage> {
  // stdout (the judge's log lines) goes to /dev/null: written, as in production, but not kept.
  const child = fork(__filename, [`--serve-child=${kind}`], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...execArgv],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: ChildMessage) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${kind} server child exited ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

// ---------- the run ----------

interface Round {
  engine: Latencies;
  floorSequential: Latencies;
  judgeSequential: Latencies;
  floorConcurrent: Latencies;
  judgeConcurrent: Latencies;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** "median (min–max)" of one figure over the rounds. */
function spread(values: number[], digits: number): string {
  const f = (v: number) => v.toFixed(digits);
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}

function tables(rounds: Round[]): string {
  const pick = (get: (r: Round) => number) => rounds.map(get);
  const seqRow = (name: string, get: (r: Round) => Latencies, floor?: (r: Round) => Latencies) =>
    `| ${name} | ${spread(
      pick((r) => get(r).p50),
      3,
    )} | ${spread(
      pick((r) => get(r).p99),
      3,
    )} | ${spread(
      pick((r) => get(r).rps),
      0,
    )} | ${
      floor
        ? spread(
            pick((r) => get(r).p50 / floor(r).p50),
            2,
          ) + '×'
        : '—'
    } |`;
  const conRow = (name: string, get: (r: Round) => Latencies) =>
    `| ${name} | ${spread(
      pick((r) => get(r).rps),
      0,
    )} | ${spread(
      pick((r) => get(r).p50),
      0,
    )} | ${spread(
      pick((r) => get(r).p99),
      0,
    )} |`;
  const ratio = pick((r) => r.judgeConcurrent.rps / r.floorConcurrent.rps);
  return [
    `Sequential, one request at a time (${SEQUENTIAL} per path and round, timed to the microsecond):`,
    '',
    '| path | p50 ms | p99 ms | req/s | p50 over floor |',
    '| --- | ---: | ---: | ---: | ---: |',
    seqRow('engine only (in-process, no HTTP)', (r) => r.engine),
    seqRow('floor: bare node:http, same JSON work (1 connection)', (r) => r.floorSequential),
    seqRow(
      'judge server (1 connection)',
      (r) => r.judgeSequential,
      (r) => r.floorSequential,
    ),
    '',
    `Throughput, autocannon with ${CONNECTIONS} connections, ${AUTOCANNON_SECONDS} s per path and round (latency in whole ms):`,
    '',
    `| path | req/s | p50 ms | p99 ms |`,
    '| --- | ---: | ---: | ---: |',
    conRow(`floor: bare node:http, same JSON work`, (r) => r.floorConcurrent),
    conRow(`judge server`, (r) => r.judgeConcurrent),
    '',
    `**Judge server ÷ floor, req/s at ${CONNECTIONS} connections: ${spread(ratio, 2)}** (median of the per-round ratios, range).`,
    '',
    `${rounds.length} rounds, each figure the median (min–max) over them; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} at the end. Run at ${new Date().toISOString()}.`,
  ].join('\n');
}

async function profile(): Promise<void> {
  const dir = path.join(REPO, '.runtime', 'profiles');
  mkdirSync(dir, { recursive: true });
  const judge = await startChild('judge', ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const url = new URL(judge.url);
  await benchSequential(url, judge.key, WARMUP);
  const result = await benchConcurrent(url, judge.key);
  await stopChild(judge.child);
  process.stdout.write(`${Math.round(result.rps)} req/s; profile written to ${dir}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string' }, 'no-write': { type: 'boolean' }, profile: { type: 'boolean' } },
  });
  if (values.profile) return profile();
  const roundCount = Number(values.rounds ?? 5);
  if (!Number.isInteger(roundCount) || roundCount < 1) throw new Error('--rounds must be a whole number ≥ 1');
  const judge = await startChild('judge');
  const floor = await startChild('floor');
  try {
    const judgeUrl = new URL(judge.url);
    const floorUrl = new URL(floor.url);
    const engine = new JudgeEngine({ backend: new InstantBackend() });
    for (let i = 0; i < WARMUP; i++) await engine.judge(JSON.parse(body));
    await benchSequential(judgeUrl, judge.key, WARMUP);
    await benchSequential(floorUrl, floor.key, WARMUP);
    const rounds: Round[] = [];
    for (let r = 0; r < roundCount; r++) {
      // Alternate which server goes first, so that drifts in the machine's load fall on both alike.
      const judgeFirst = r % 2 === 0;
      const round: Partial<Round> = { engine: await benchEngine(engine) };
      const sequential = async (which: ChildKind) =>
        which === 'judge'
          ? (round.judgeSequential = await benchSequential(judgeUrl, judge.key, SEQUENTIAL))
          : (round.floorSequential = await benchSequential(floorUrl, floor.key, SEQUENTIAL));
      const concurrent = async (which: ChildKind) =>
        which === 'judge'
          ? (round.judgeConcurrent = await benchConcurrent(judgeUrl, judge.key))
          : (round.floorConcurrent = await benchConcurrent(floorUrl, floor.key));
      const order: ChildKind[] = judgeFirst ? ['judge', 'floor'] : ['floor', 'judge'];
      for (const which of order) await sequential(which);
      for (const which of order) await concurrent(which);
      rounds.push(round as Round);
      process.stderr.write(
        `round ${r + 1}/${roundCount}: judge ${Math.round(round.judgeConcurrent!.rps)} req/s, floor ${Math.round(round.floorConcurrent!.rps)} req/s\n`,
      );
    }
    const markdown = tables(rounds);
    process.stdout.write(markdown + '\n');
    if (!values['no-write']) process.stdout.write(`written to ${await writeGenerated('judge-server', markdown)}\n`);
  } finally {
    await stopChild(judge.child);
    await stopChild(floor.child);
  }
}

const child = process.argv.find((a) => a.startsWith('--serve-child='))?.split('=')[1] as ChildKind | undefined;
if (child) void (child === 'judge' ? serveJudge() : serveFloor());
else
  main().catch((error) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
