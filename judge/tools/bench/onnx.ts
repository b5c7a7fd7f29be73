// Benchmark of the local ONNX backend (not a test): what extra questions cost.
// For N = 1, 5, 20 questions of ~15 tokens over a ~400-token state ("uniform"), and for a mix shaped like real
// requests ("mixed": the questions of the JevBench-240 case with the most questions, repeated to 20, over that
// case's state), on generated models of ~17M and ~134M parameters: time of N separate calls ÷ time of one
// N-question call, next to the token ratio N·(S+Q)/(S+N·Q). The state-KV cache is off, so every call pays for its
// state. The ~17M model also runs as a plain-past export made shared-prefix by `convert`, and as a graph without the
// packing inputs (every question in its own padded row, as before packing). Writes its table between the "onnx"
// markers of docs/BENCHMARKS.md.
//
//   npm run build -w systemone-judge && npm run bench:onnx -w systemone-judge [-- --quick] [-- --threads 2]
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createOnnxBackend } from '../../src/backends/onnx';
import { convert } from '../../src/cli/commands/convert';
import type { RenderedQuestion, RenderedRequest } from '../../src/engine/backend';
import * as ort from 'onnxruntime-node';
import { renderRequest } from '../../src/engine/render';
import { withLogitsIndices } from '../../src/model-tools/logits-positions';
import { decodeModel, encodeModel } from '../../src/model-tools/onnx-proto';
import type { SystemOneRequest } from '../../src/protocol/types';
import { generateTinyModelDir, parameterCount, type TinyLmSpec } from '../fixtures/generate-model';
import { writeGenerated } from './markers';
import { median, questions, stateOfTokens, timeIt } from './workload';

const REPO = resolve(__dirname, '..', '..', '..');

interface BenchModel {
  name: string;
  spec: Omit<TinyLmSpec, 'seed' | 'layout'>;
  /** Repeats per --repeats: the small model's calls take milliseconds, so it gets more of them against noise. */
  repeatFactor: number;
  /** `generated`: written directly in the shared-prefix layout; `converted`: a plain export made so by `convert`. */
  origin: 'generated' | 'converted';
}

/** The JevBench-240 corpus, read in place beside the repository (never copied into it). */
const CORPUS = resolve(REPO, '..', 'shared', 'data', 'jevbench-240', 'cases.jsonl');

/** The case with the most questions (the first such, in corpus order): its state and questions. */
function mixedCase(): { id: string; state: SystemOneRequest['state']; questions: SystemOneRequest['questions'] } {
  const cases = readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { id: string; state: SystemOneRequest['state']; questions: object });
  const most = cases.reduce((best, c) =>
    Object.keys(c.questions).length > Object.keys(best.questions).length ? c : best,
  );
  return most as ReturnType<typeof mixedCase>;
}

const SMALL = { vocabSize: 32000, hidden: 240, layers: 2, heads: 4, maxPositions: 1024 };
const MODELS: BenchModel[] = [
  { name: '~17M', spec: SMALL, repeatFactor: 3, origin: 'generated' },
  { name: '~17M, no packing', spec: { ...SMALL, packing: false }, repeatFactor: 3, origin: 'generated' },
  { name: '~17M, convert', spec: SMALL, repeatFactor: 3, origin: 'converted' },
  {
    name: '~134M',
    spec: { vocabSize: 32000, hidden: 768, layers: 12, heads: 12, maxPositions: 1024 },
    repeatFactor: 1,
    origin: 'generated',
  },
];

function generatedDir(m: BenchModel, layout: 'shared-prefix' | 'plain-past'): string {
  const variant = m.spec.packing === false ? '-no-packing' : '';
  const dir = join(REPO, '.runtime', 'bench-models', `${layout}-${m.spec.hidden}x${m.spec.layers}${variant}`);
  const spec = { ...m.spec, seed: 1, layout, generator: 3 };
  const marker = join(dir, 'spec.json');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== JSON.stringify(spec)) {
    process.stderr.write(`generating the ${m.name} model (${layout}) in ${dir} …\n`);
    generateTinyModelDir({ ...spec, dir });
    writeFileSync(marker, JSON.stringify(spec));
  }
  return dir;
}

/** The model directory to serve: generated in the fast layout, or a plain export run through `convert`. */
async function modelDir(m: BenchModel): Promise<string> {
  if (m.origin === 'generated') return generatedDir(m, 'shared-prefix');
  const plain = generatedDir(m, 'plain-past');
  const out = join(REPO, '.runtime', 'bench-models', `converted-${m.spec.hidden}x${m.spec.layers}`);
  rmSync(out, { recursive: true, force: true });
  process.stderr.write(`converting ${plain} → ${out} …\n`);
  const code = await convert.run(['--in', plain, '--out', out]);
  if (code !== 0) throw new Error(`convert exited ${code}`);
  return out;
}

interface Row {
  model: string;
  params: number;
  /** `uniform` (generated questions of ~15–20 tokens) or `mixed` (a JevBench-240 case's questions). */
  questions: 'uniform' | 'mixed';
  n: number;
  S: number;
  Q: number;
  separateMs: number;
  batchMs: number;
  repeats: number;
  /** 1-minute load average when this row's measurement began and ended (other work on the machine). */
  load: [number, number];
}

async function benchModel(m: BenchModel, threads: number, baseRepeats: number): Promise<Row[]> {
  const dir = await modelDir(m);
  const backend = await createOnnxBackend({
    models: [{ id: 'bench', dir }],
    intraOpNumThreads: threads,
    kvCacheBytes: 0,
  });
  try {
    const uniformPrefix = stateOfTokens((text) => backend.countTokens('bench', text), 400);
    const mixed = mixedCase();
    const mixedRendered = renderRequest({ state: mixed.state, questions: mixed.questions });
    const cases: { kind: Row['questions']; prefix: string; qs: RenderedQuestion[] }[] = [
      ...[1, 5, 20].map((n) => ({ kind: 'uniform' as const, prefix: uniformPrefix, qs: questions(n) })),
      {
        kind: 'mixed',
        prefix: mixedRendered.prefix,
        qs: Array.from({ length: 20 }, (_, i) => mixedRendered.questions[i % mixedRendered.questions.length]),
      },
    ];
    const rows: Row[] = [];
    for (const { kind, prefix, qs } of cases) {
      const n = qs.length;
      const S = backend.countTokens('bench', prefix);
      const Q = qs.reduce((sum, q) => sum + backend.countTokens('bench', q.suffix), 0) / n;
      const together: RenderedRequest = { prefix, questions: qs };
      const job = (rendered: RenderedRequest) => ({ model: 'bench', state: prefix, rendered });
      await backend.score(job(together)); // warm-up (shapes, allocator)
      const repeats = baseRepeats * m.repeatFactor;
      // Per question, its separate call's time in each repeat; the N-separate-calls time is the sum of their medians.
      const separate: number[][] = qs.map(() => []);
      const batch: number[] = [];
      const loadBefore = loadavg()[0];
      for (let r = 0; r < repeats; r++) {
        // Alternate the two so that machine noise falls on both alike.
        batch.push(await timeIt(() => backend.score(job(together))));
        for (const [i, q] of qs.entries())
          separate[i].push(await timeIt(() => backend.score(job({ prefix, questions: [q] }))));
      }
      const separateMs = separate.reduce((sum, times) => sum + median(times), 0);
      const batchMs = median(batch);
      const load: [number, number] = [loadBefore, loadavg()[0]];
      rows.push({
        model: m.name,
        params: parameterCount({ ...m.spec, seed: 1, layout: 'shared-prefix' }),
        questions: kind,
        n,
        S,
        Q,
        separateMs,
        batchMs,
        repeats,
        load,
      });
      process.stderr.write(
        `${m.name} ${kind} N=${n}: separate ${separateMs.toFixed(1)} ms, one call ${batchMs.toFixed(1)} ms (load ${load.map((l) => l.toFixed(2)).join(' → ')})\n`,
      );
    }
    return rows;
  } finally {
    await backend.close();
  }
}

function table(rows: Row[], threads: number): string {
  const lines = [
    '`npm run build -w systemone-judge && npm run bench:onnx -w systemone-judge` — one run, side by side, on',
    `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, onnxruntime-node CPU, intraOpNumThreads ${threads}.`,
    'Generated models (random weights, 32k vocabulary): written directly in the shared-prefix layout, or (", convert") generated as a plain-past export and rewritten by `systemone-judge convert`; ", no packing": the same weights without the packing inputs, every question in its own row padded to the longest.',
    '"uniform": state S ≈ 400 tokens, N questions of Q ≈ 15–20 tokens (mean per row below), single-token labels Yes/No.',
    `"mixed": the questions of JevBench-240's case with the most questions (${mixedCase().id}), repeated to 20, over that case's state; Q is their mean length.`,
    'State-KV cache off: every call pays for its state. "N separate calls" runs the N',
    `questions one call each (each a single pass over state + question); "one call" runs them as one request (state once,`,
    'then all questions in one batch over the shared state KV). Repeats alternate the two (one call, then the N separate',
    `calls), ${[...new Set(rows.map((r) => `${r.model}: ${r.repeats}`))].join(', ')} repeats; "one call" is the median, "N separate calls" the sum of each question's median.`,
    'Token ratio = N·(S+Q) / (S+N·Q). Targets at N = 20 (issue 18): time ÷ token ratio ≥ 0.95 on uniform questions, ≥ 0.9 on the mixed ones.',
    'The machine is shared with other work, so absolute times are noisy; the ratios within one run are what matters.',
    `"load" is the 1-minute load average when the row began → ended; the benchmark's own ${threads} thread(s) account for up to ${threads} of it, the rest is other work competing for the ${cpus().length} cores.`,
    '',
    '| model | params | questions | N | S | Q | N separate calls ms | one N-question call ms | time ratio | token ratio | time ÷ token ratio | load |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const timeRatio = r.separateMs / r.batchMs;
    const tokenRatio = (r.n * (r.S + r.Q)) / (r.S + r.n * r.Q);
    lines.push(
      `| ${r.model} | ${(r.params / 1e6).toFixed(1)}M | ${r.questions} | ${r.n} | ${r.S} | ${r.Q.toFixed(1)} | ${r.separateMs.toFixed(1)} | ${r.batchMs.toFixed(1)} | ${timeRatio.toFixed(2)} | ${tokenRatio.toFixed(2)} | ${(timeRatio / tokenRatio).toFixed(2)} | ${r.load.map((l) => l.toFixed(1)).join(' → ')} |`,
    );
  }
  lines.push('', `Run at ${new Date().toISOString()}.`);
  return lines.join('\n');
}

/**
 * A plain export served as it is: its state pass (400 tokens, batch 1, empty past) with the LM head on every
 * position (the graph as exported) and on the last one only (logits_indices, as the backend adds it when loading).
 */
async function statePassRow(m: BenchModel, threads: number, repeats: number): Promise<string> {
  const dir = generatedDir(m, 'plain-past');
  const bytes = readFileSync(join(dir, 'model.onnx'));
  const limited = withLogitsIndices(decodeModel(bytes));
  if (!('model' in limited)) throw new Error(limited.reason);
  const options = { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' as const };
  const asExported = await ort.InferenceSession.create(bytes, options);
  const lastOnly = await ort.InferenceSession.create(encodeModel(limited.model), options);
  try {
    const T = 400;
    const { layers, heads, hidden } = m.spec;
    const i64 = (values: number[], dims: number[]) =>
      new ort.Tensor(
        'int64',
        BigInt64Array.from(values, (v) => BigInt(v)),
        dims,
      );
    const feeds = (session: ort.InferenceSession) => {
      const f: Record<string, ort.Tensor> = {
        input_ids: i64(
          Array.from({ length: T }, (_, i) => (i * 13) % 1000),
          [1, T],
        ),
        attention_mask: i64(Array<number>(T).fill(1), [1, T]),
        position_ids: i64(
          Array.from({ length: T }, (_, i) => i),
          [1, T],
        ),
      };
      for (let l = 0; l < layers; l++)
        for (const kv of ['key', 'value'])
          f[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [
            1,
            heads,
            0,
            hidden / heads,
          ]);
      if (session.inputNames.includes('logits_indices')) f.logits_indices = i64([T - 1], [1]);
      return f;
    };
    const fetches = Array.from({ length: layers }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat();
    const once = (session: ort.InferenceSession) => timeIt(() => session.run(feeds(session), fetches));
    await once(asExported);
    await once(lastOnly);
    const every: number[] = [];
    const last: number[] = [];
    for (let r = 0; r < repeats * m.repeatFactor * 3; r++) {
      every.push(await once(asExported));
      last.push(await once(lastOnly));
    }
    const [a, b] = [median(every), median(last)];
    process.stderr.write(`${m.name} state pass: every position ${a.toFixed(1)} ms, last only ${b.toFixed(1)} ms\n`);
    return `| ${m.name} | ${T} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(2)} | ${every.length} |`;
  } finally {
    await asExported.release();
    await lastOnly.release();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      threads: { type: 'string' },
      repeats: { type: 'string' },
      'no-write': { type: 'boolean' },
    },
    strict: true,
  });
  const threads = Number(values.threads ?? 2);
  const repeats = Number(values.repeats ?? 5);
  if (!Number.isInteger(threads) || threads < 1) throw new Error('--threads must be a whole number ≥ 1');
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats must be a whole number ≥ 1');
  const models = values.quick ? MODELS.filter((m) => m.name.startsWith('~17M')) : MODELS;
  const rows: Row[] = [];
  for (const m of models) rows.push(...(await benchModel(m, threads, repeats)));
  const stateRows: string[] = [];
  for (const m of models.filter((x) => x.origin === 'generated' && x.spec.packing !== false))
    stateRows.push(await statePassRow(m, threads, repeats));
  const generated = [
    table(rows, threads),
    '',
    'A plain export served as it is (plain-past path): its state pass, batch 1, with the LM head on every position',
    '(the graph as exported) and on the last one only (the logits_indices the backend adds when it loads such a graph).',
    'Alternating, median.',
    '',
    '| model | state tokens | every position ms | last position only ms | ratio | repeats |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...stateRows,
  ].join('\n');
  process.stdout.write(generated + '\n');
  // Only the generated part between its markers: the analysis written around it stays.
  if (!values['no-write']) process.stdout.write(`written to ${await writeGenerated('onnx', generated)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:onnx: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
