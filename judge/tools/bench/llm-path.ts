// The decision service on the LLM path (issue 36), through the repository's fakes of the serving engines
// (test/fakes/), the judge's OpenAI-compatible backend as it runs in production:
//  (a) time of one call with 20 questions ÷ one call with 1 question on the same ~400-token state, through the vLLM
//      fake (continuous batching, prefix cache; labels read by id) and through the llama.cpp fake with one slot
//      (the questions one at a time, its slot's prompt cache; top n_probs), side by side with the token ratio. The
//      fakes' compute stand-in is on (prefillMsPerToken, decodeMsPerStep / decodeMsPerToken): time proportional to
//      the tokens they compute, so this measures how the judge's calls use the engine, not a real model's speed.
//      Every call gets a state never seen before (its own first line), so each is cold: the state is prefilled in
//      the call.
//  (b) the sampling fallback's cost per question, in requests and tokens, from the OpenAI-compatible fake's
//      counters on a provider that ignores `logprobs` (Anthropic's layer), beside the logprobs path on the same fake.
// Prints its tables; with --write, puts them between the "issue-36-llm" markers of docs/BENCHMARKS.md.
//   npm run bench:llm-path -w systemone-judge [-- --repeats 5 --write]
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OpenAIBackend } from '../../src/backends/openai';
import { JudgeEngine } from '../../src/engine/engine';
import { ApiError } from '../../src/protocol/errors';
import { renderState } from '../../src/engine/render';
import type { SystemOneRequest } from '../../src/protocol/types';
import { startFakeOpenAI, type FakeLogprobsSupport } from '../../test/fakes/openai-logprobs';
import { writeGeneratedSection } from './markers';
import { median, stateOfTokens, timeIt } from './workload';

const REPO = resolve(__dirname, '..', '..', '..');
const ID = 'judge-openai-bench-2026-01-01';
const STATE_TOKENS = 400;
const CHARS_PER_TOKEN = 4;
/**
 * The compute stand-in: 500 prompt tokens a second, 25 generated tokens a second (about a 0.5B model on two CPU
 * cores), large enough that the fakes' and the judge's own JavaScript work (one process) is small beside it.
 */
const PREFILL_MS_PER_TOKEN = 2;
const DECODE_MS = 40;

// The engine fakes live in the repository's test/fakes/, outside this workspace's rootDir: loaded at run time
// (tsx compiles them), typed here by what this benchmark reads.
interface FakeServer {
  baseUrl: string;
  close(): Promise<void>;
}
interface VllmFake extends FakeServer {
  stats: { batches: number[]; prefilledTokens: number; cachedTokens: number };
}
interface LlamacppFake extends FakeServer {
  requests: { route: string; body: Record<string, unknown>; cacheN?: number }[];
}
const loadFake = createRequire(__filename);
const { startVllmFake } = loadFake(join(REPO, 'test', 'fakes', 'vllm.ts')) as {
  startVllmFake(options: { prefillMsPerToken: number; decodeMsPerStep: number }): Promise<VllmFake>;
};
const { startLlamacppFake } = loadFake(join(REPO, 'test', 'fakes', 'llamacpp.ts')) as {
  startLlamacppFake(options: {
    slots: number;
    prefillMsPerToken: number;
    decodeMsPerToken: number;
  }): Promise<LlamacppFake>;
};

const countTokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

function nouls(n: number): SystemOneRequest['questions'] {
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul' as const, instructions: `Is point ${i} late?` }]),
  );
}

/** A ~400-token state no call has sent before (its own first line). */
const freshState = (tag: string) => stateOfTokens(countTokens, STATE_TOKENS, `Ticket ${tag}:\n`);

interface Server {
  name: string;
  backend: OpenAIBackend;
  /** Prompt tokens the server computed (not taken from a cache) so far. */
  prefilled(): number;
  close(): Promise<void>;
}

async function vllmServer(): Promise<Server> {
  const fake = await startVllmFake({ prefillMsPerToken: PREFILL_MS_PER_TOKEN, decodeMsPerStep: DECODE_MS });
  return {
    name: 'vLLM fake (batching, prefix cache)',
    backend: new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'qwen-fake', id: ID }),
    prefilled: () => fake.stats.prefilledTokens,
    close: () => fake.close(),
  };
}

async function oneSlotServer(): Promise<Server> {
  const fake = await startLlamacppFake({
    slots: 1,
    prefillMsPerToken: PREFILL_MS_PER_TOKEN,
    decodeMsPerToken: DECODE_MS,
  });
  return {
    name: 'llama.cpp fake, one slot',
    backend: new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'qwen-fake', id: ID }),
    prefilled: () =>
      fake.requests
        .filter((r) => r.route === '/completion')
        .reduce((sum, r) => sum + countTokens(r.body.prompt as string) - (r.cacheN ?? 0), 0),
    close: () => fake.close(),
  };
}

interface RatioRow {
  server: string;
  method: string;
  concurrency: number;
  stateTokens: number;
  questionTokens: number;
  one: { ms: number; prefilled: number };
  twenty: { ms: number; prefilled: number };
  repeats: number;
  load: [number, number];
}

/** (a): alternating 1- and 20-question calls, each on a fresh state; medians of time and of tokens prefilled. */
async function ratioRow(server: Server, repeats: number): Promise<RatioRow> {
  const engine = new JudgeEngine({ backend: server.backend });
  await server.backend.probe(); // as `serve` does at start: finds the native route and the method
  await engine.judge({ model: ID, state: freshState('warm-up'), questions: nouls(20) }); // the probe, and warm-up
  const scoring = await server.backend.scoringOf();
  const measured = {
    1: { ms: [] as number[], prefilled: [] as number[] },
    20: { ms: [] as number[], prefilled: [] as number[] },
  };
  const loadBefore = loadavg()[0];
  for (let r = 0; r < repeats; r++) {
    for (const n of [20, 1] as const) {
      const before = server.prefilled();
      const request = { model: ID, state: freshState(`${r}-${n}`), questions: nouls(n) };
      measured[n].ms.push(await timeIt(() => engine.judge(request)));
      measured[n].prefilled.push(server.prefilled() - before);
    }
  }
  const suffixTokens = (await engine.prepare({ model: ID, state: 'x', questions: nouls(20) })).rendered.questions.map(
    (q) => countTokens(q.suffix),
  );
  const row: RatioRow = {
    server: server.name,
    method: scoring.method,
    concurrency: server.backend.concurrency,
    stateTokens: countTokens(renderState(freshState(`${repeats}-20`))),
    questionTokens: suffixTokens.reduce((a, b) => a + b, 0) / suffixTokens.length,
    one: { ms: median(measured[1].ms), prefilled: median(measured[1].prefilled) },
    twenty: { ms: median(measured[20].ms), prefilled: median(measured[20].prefilled) },
    repeats,
    load: [loadBefore, loadavg()[0]],
  };
  process.stderr.write(
    `${row.server}: 1 question ${row.one.ms.toFixed(0)} ms (${row.one.prefilled} tokens prefilled), ` +
      `20 questions ${row.twenty.ms.toFixed(0)} ms (${row.twenty.prefilled})\n`,
  );
  return row;
}

interface CostRow {
  provider: string;
  method: string;
  calibrated: boolean | undefined;
  questions: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** The judge's refusal before any request, when the call is over its limits. */
  refused?: string;
}

/** A noul, a 4-way choice and a 5-point score, repeated to `n` questions. */
function mixedQuestions(n: number): SystemOneRequest['questions'] {
  const kinds: SystemOneRequest['questions'][string][] = [
    { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    { type: 'choice', instructions: 'Which team?', criteria: { billing: null, tech: null, sales: null, legal: null } },
    { type: 'score', instructions: 'How upset?', criteria: ['calm', 'mild', 'annoyed', 'angry', 'furious'] },
  ];
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, kinds[i % kinds.length]]));
}

/** (b): one call of `n` mixed questions on a fresh state, counted by the OpenAI-compatible fake. */
async function costRow(support: FakeLogprobsSupport, n: number): Promise<CostRow> {
  const fake = await startFakeOpenAI({ logprobs: support });
  try {
    const backend = new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'm', id: ID });
    const scoring = await backend.scoringOf(); // the probe, counted apart
    const [requests, usages] = [fake.requests.length, fake.usages.length];
    const request = { model: ID, state: freshState(`cost-${support}-${n}`), questions: mixedQuestions(n) };
    const refused = await new JudgeEngine({ backend }).judge(request).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 400) return error.message;
        throw error;
      },
    );
    const spent = fake.usages.slice(usages);
    return {
      provider: support === 'ignored' ? "ignores logprobs (Anthropic's layer)" : 'returns logprobs',
      method: scoring.method,
      calibrated: scoring.calibrated,
      questions: n,
      refused,
      requests: fake.requests.length - requests,
      promptTokens: spent.reduce((sum, u) => sum + u.prompt_tokens, 0),
      completionTokens: spent.reduce((sum, u) => sum + u.completion_tokens, 0),
    };
  } finally {
    await fake.close();
  }
}

function tables(ratios: RatioRow[], costs: CostRow[]): string {
  const lines = [
    '`npm run bench:llm-path -w systemone-judge -- --write` — one run, on',
    `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; the judge's OpenAI-compatible backend in-process, the fakes on loopback.`,
    `Compute stand-in of the fakes: ${PREFILL_MS_PER_TOKEN} ms per prompt token computed (not served from a cache) and ${DECODE_MS} ms per generated token (vLLM fake: per decode step of the whole batch; llama.cpp fake: per token, its one slot held). A token is 4 characters.`,
    `State ≈ ${STATE_TOKENS} tokens (S below: the rendered state), noul questions (Q: the mean question suffix). Each call on a state never sent before. ${ratios[0]?.repeats ?? 0} calls of each size, alternating; medians.`,
    'Token ratio = (S + 20·Q) ÷ (S + Q), what "the cost rises only by the tokens of the extra questions" allows; "prefilled ratio": the tokens the fake actually computed, 20-question call ÷ 1-question call (from its counters).',
    '',
    '| server | method | in flight | S | Q | 1 question ms | 20 questions ms | time ratio | token ratio | prefilled ratio | load |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of ratios) {
    const tokenRatio = (r.stateTokens + 20 * r.questionTokens) / (r.stateTokens + r.questionTokens);
    lines.push(
      `| ${r.server} | ${r.method} | ${r.concurrency} | ${r.stateTokens} | ${r.questionTokens.toFixed(1)} | ${r.one.ms.toFixed(0)} | ${r.twenty.ms.toFixed(0)} | ${(r.twenty.ms / r.one.ms).toFixed(2)} | ${tokenRatio.toFixed(2)} | ${(r.twenty.prefilled / r.one.prefilled).toFixed(2)} | ${r.load.map((l) => l.toFixed(1)).join(' → ')} |`,
    );
  }
  lines.push(
    '',
    "The sampling fallback's cost (the OpenAI-compatible fake, its counters; the backend's defaults: 8 samples per prompt, at most 16 tokens each): one call of N questions, a noul, a 4-way choice and a 5-point score in turn, on a ~400-token state; the probe's requests are counted apart.",
    '',
    '| provider | method | calibrated | N | requests | per question | prompt tokens | per question | completion tokens | per question |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const c of costs) {
    const per = (value: number) => (value / c.questions).toFixed(1);
    if (c.refused) {
      lines.push(
        `| ${c.provider} | ${c.method} | ${String(c.calibrated)} | ${c.questions} | refused (below) | | | | | |`,
      );
      continue;
    }
    lines.push(
      `| ${c.provider} | ${c.method} | ${String(c.calibrated)} | ${c.questions} | ${c.requests} | ${per(c.requests)} | ${c.promptTokens} | ${per(c.promptTokens)} | ${c.completionTokens} | ${per(c.completionTokens)} |`,
    );
  }
  for (const c of costs.filter((x) => x.refused)) {
    lines.push('', `N = ${c.questions} on the fallback: refused by the judge before any request (400): "${c.refused}"`);
  }
  lines.push('', `Run at ${new Date().toISOString()}.`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { repeats: { type: 'string' }, write: { type: 'boolean' } }, strict: true });
  const repeats = Number(values.repeats ?? 5);
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats must be a whole number ≥ 1');
  const ratios: RatioRow[] = [];
  for (const start of [vllmServer, oneSlotServer]) {
    const server = await start();
    try {
      ratios.push(await ratioRow(server, repeats));
    } finally {
      await server.close();
    }
  }
  const costs: CostRow[] = [];
  for (const support of ['returned', 'ignored'] as const)
    for (const n of [1, 5, 20]) costs.push(await costRow(support, n));
  const generated = tables(ratios, costs);
  process.stdout.write(generated + '\n');
  if (values.write) process.stdout.write(`written to ${await writeGeneratedSection('issue-36-llm', generated)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`llm-path: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
