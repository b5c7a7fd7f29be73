// The seed's "70 to 500 milliseconds" on the local ONNX path (issue 36): a generated model with the exact shape of
// Qwen2.5-0.5B — 24 layers, hidden 896, 14 query heads and 2 KV heads (GQA), head size 64, rotary positions,
// a gated (SwiGLU) MLP of 4864, a 151,936-token vocabulary (lm_head its own matrix: the compute of tied
// embeddings) — random weights, the same compute. fp32, and int4 (com.microsoft.MatMulNBits, block size 32, the
// LM head too, weights drawn already packed). A ~400-token state with 1, 5 and 20 questions, p50 and p95 per call:
// "cold" (a state never seen, prefilled in the call) and "state cached" (the state's KV kept from an earlier call,
// as the backend's state cache does for repeated states). Models are written under the cache directory (default
// the system's temp dir), never into the repository. Prints its table; with --write, puts it between the
// "issue-36-onnx" markers of docs/BENCHMARKS.md.
//   npm run bench:qwen-shape -w systemone-judge [-- --repeats 8 --threads 2 --cache-dir DIR --only fp32|int4 --write]
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createOnnxBackend, type OnnxBackend } from '../../src/backends/onnx';
import type { RenderedRequest } from '../../src/engine/backend';
import { generateTinyModelDir, parameterCount, type GenerateOptions } from '../fixtures/generate-model';
import { writeGeneratedSection } from './markers';
import { percentile, questions, stateOfTokens, timeIt } from './workload';

/** Qwen2.5-0.5B's config.json, as the generator takes it. */
export const QWEN25_05B_SHAPE = {
  vocabSize: 151936,
  hidden: 896,
  layers: 24,
  heads: 14,
  kvHeads: 2,
  intermediate: 4864,
  gatedMlp: true,
  rotary: true,
  ropeTheta: 1_000_000,
  maxPositions: 32768,
} as const;

const VARIANTS = {
  fp32: {},
  int4: { quantize: 'int4', blockSize: 32, symmetric: true, randomPackedInt4: true },
} as const satisfies Record<string, Partial<GenerateOptions>>;
type Variant = keyof typeof VARIANTS;

const STATE_TOKENS = 400;
const COUNTS = [1, 5, 20];

/** The variant's model directory under `cacheDir`, generated once (a spec file says which spec it holds). */
function modelDir(cacheDir: string, variant: Variant): string {
  const dir = join(cacheDir, `qwen2.5-0.5b-shape-${variant}`);
  const spec = { ...QWEN25_05B_SHAPE, ...VARIANTS[variant], seed: 36, layout: 'shared-prefix' as const, generator: 1 };
  const marker = join(dir, 'spec.json');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify(spec)) return dir;
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`generating the ${variant} model in ${dir} …\n`);
  const ms = Date.now();
  generateTinyModelDir({ ...spec, dir, externalData: 'model.onnx_data' });
  writeFileSync(marker, JSON.stringify(spec));
  process.stderr.write(`  done in ${((Date.now() - ms) / 1000).toFixed(0)} s\n`);
  return dir;
}

interface Row {
  variant: Variant;
  mode: 'cold' | 'state cached';
  n: number;
  stateTokens: number;
  questionTokens: number;
  times: number[];
  load: [number, number];
}

/** p50/p95 of N-question calls on one loaded model, cold (a fresh state each call) and with the state cached. */
async function measure(backend: OnnxBackend, variant: Variant, repeats: number): Promise<Row[]> {
  const count = (text: string) => backend.countTokens('bench', text);
  // A fresh state per cold call: its own first line, so not one token of it is in the state cache.
  const coldState = (i: number) => stateOfTokens(count, STATE_TOKENS, `Ticket ${variant}-${i}-${Date.now()}:\n`);
  const warmState = stateOfTokens(count, STATE_TOKENS);
  const job = (rendered: RenderedRequest) => ({ model: 'bench', state: rendered.prefix, rendered });
  await backend.score(job({ prefix: coldState(-1), questions: questions(20) })); // warm-up (shapes, allocator)
  const rows: Row[] = [];
  for (const n of COUNTS) {
    const qs = questions(n);
    const questionTokens = qs.reduce((sum, q) => sum + count(q.suffix), 0);
    for (const mode of ['cold', 'state cached'] as const) {
      const loadBefore = loadavg()[0];
      if (mode === 'state cached') await backend.score(job({ prefix: warmState, questions: qs }));
      const times: number[] = [];
      for (let r = 0; r < repeats; r++) {
        const prefix = mode === 'cold' ? coldState(r) : warmState;
        times.push(await timeIt(() => backend.score(job({ prefix, questions: qs }))));
      }
      const row: Row = {
        variant,
        mode,
        n,
        stateTokens: count(warmState),
        questionTokens,
        times,
        load: [loadBefore, loadavg()[0]],
      };
      rows.push(row);
      process.stderr.write(
        `${variant} ${mode} N=${n}: p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms ` +
          `(load ${row.load.map((l) => l.toFixed(2)).join(' → ')})\n`,
      );
    }
  }
  return rows;
}

function table(rows: Row[], sizes: Record<string, string>, threads: number, repeats: number): string {
  const params = parameterCount({ ...QWEN25_05B_SHAPE, seed: 0, layout: 'shared-prefix' });
  const lmHead = QWEN25_05B_SHAPE.vocabSize * QWEN25_05B_SHAPE.hidden;
  const lines = [
    '`npm run bench:qwen-shape -w systemone-judge -- --write` — one run, on',
    `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, onnxruntime-node CPU, one inference worker, intraOpNumThreads ${threads}.`,
    `Generated model with the shape of Qwen2.5-0.5B (${(params / 1e6).toFixed(0)}M parameters: its ${((params - lmHead) / 1e6).toFixed(0)}M plus a separate ${(lmHead / 1e6).toFixed(0)}M lm_head, which Qwen ties to the embeddings: the same compute; 24 layers, hidden 896, 14 query / 2 KV heads, SwiGLU 4864, 151,936-token vocabulary, RoPE), random weights, shared-prefix layout with packing (what \`convert\` makes of an export).`,
    `fp32: ${sizes.fp32 ?? 'not run'}; int4: MatMulNBits, block 32, symmetric, every projection and the LM head, embeddings fp32: ${sizes.int4 ?? 'not run'}.`,
    `State ≈ ${STATE_TOKENS} tokens; N noul questions of ~15–20 tokens (Yes/No). "cold": a state the backend has never seen (prefilled in the call); "state cached": the same state as the call before, its KV taken from the backend's state cache, so only the questions run.`,
    `${repeats} calls per row after one warm-up call; p50 and p95 by nearest rank (with ${repeats} calls p95 is the slowest call).`,
    `"load" is the 1-minute load average when the row began → ended; the benchmark's own ${threads} threads account for up to ${threads} of it.`,
    '',
    '| model | state | N | state tokens | question tokens | p50 ms | p95 ms | load |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const [p50, p95] = [percentile(r.times, 50), percentile(r.times, 95)];
    const load = r.load.map((l) => l.toFixed(1)).join(' → ');
    lines.push(
      `| ${r.variant} | ${r.mode} | ${r.n} | ${r.stateTokens} | ${r.questionTokens} | ${p50.toFixed(0)} | ${p95.toFixed(0)} | ${load} |`,
    );
  }
  lines.push('', `Run at ${new Date().toISOString()}.`);
  return lines.join('\n');
}

const gigabytes = (dir: string) =>
  `${((statSync(join(dir, 'model.onnx_data')).size + statSync(join(dir, 'model.onnx')).size) / 1e9).toFixed(2)} GB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repeats: { type: 'string' },
      threads: { type: 'string' },
      'cache-dir': { type: 'string' },
      only: { type: 'string' },
      write: { type: 'boolean' },
    },
    strict: true,
  });
  const repeats = Number(values.repeats ?? 8);
  const threads = Number(values.threads ?? 2);
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats must be a whole number ≥ 1');
  if (!Number.isInteger(threads) || threads < 1) throw new Error('--threads must be a whole number ≥ 1');
  if (values.only !== undefined && !(values.only in VARIANTS)) throw new Error('--only must be fp32 or int4');
  const cacheDir = values['cache-dir'] ?? join(tmpdir(), 'systemone-judge-bench');
  const variants = (values.only ? [values.only] : Object.keys(VARIANTS)) as Variant[];
  const rows: Row[] = [];
  const sizes: Record<string, string> = {};
  for (const variant of variants) {
    const dir = modelDir(cacheDir, variant);
    sizes[variant] = gigabytes(dir);
    const backend = await createOnnxBackend({ models: [{ id: 'bench', dir }], intraOpNumThreads: threads });
    try {
      rows.push(...(await measure(backend, variant, repeats)));
    } finally {
      await backend.close();
    }
  }
  const generated = table(rows, sizes, threads, repeats);
  process.stdout.write(generated + '\n');
  if (values.write) process.stdout.write(`written to ${await writeGeneratedSection('issue-36-onnx', generated)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`qwen-shape: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
