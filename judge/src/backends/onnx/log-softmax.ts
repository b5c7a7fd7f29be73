// Full-vocabulary log-probabilities of a few tokens per logits row.
//
// The normaliser (log Σ exp over the whole vocabulary) is computed by ONNX Runtime's vectorised LogSoftmax in a
// tiny helper graph: in JavaScript the ~32k Math.exp calls per row cost about ten times more (measured ~25 ms
// for 20 rows of 32k against ~2–3 ms). Only one value per row comes back: the log-probability of a reference
// token. Every token's log-probability is then its logit minus (reference logit − reference log-probability),
// in float64, so the ratios between labels are exact and only the shared normaliser carries float32 rounding
// (≈ 1e-6 absolute).
import * as ort from 'onnxruntime-node';
import { BackendError } from '../../engine/backend';
import { GraphBuilder } from '../../model-tools/graph-builder';
import { TensorType, encodeModel } from '../../model-tools/onnx-proto';

export type LogitsType = 'float32' | 'float16';

/** Which tokens to read at one position of one row of a [B, T, V] logits tensor. */
export interface LogitsPick {
  row: number;
  position: number;
  tokenIds: number[];
}

type LogitsData = Float32Array | Uint16Array;

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

/** log Σ exp over one row, in float64 (the slow path, for rows the helper graph cannot normalise by reference). */
function logSumExp(read: (i: number) => number, offset: number, vocab: number): number {
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) max = Math.max(max, read(offset + i));
  if (!Number.isFinite(max)) return max;
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp(read(offset + i) - max);
  return max + Math.log(sum);
}

/** logits [P, V] and reference ids [P, 1] → the reference tokens' log-softmax values [P, 1] (float32). */
function normaliserGraph(type: LogitsType): Uint8Array {
  const g = new GraphBuilder('lsm');
  const logits = g.input('logits', type === 'float16' ? TensorType.FLOAT16 : TensorType.FLOAT, ['rows', 'vocab']);
  const referenceIds = g.input('reference_ids', TensorType.INT64, ['rows', 1]);
  const asFloat = type === 'float16' ? g.op('Cast', [logits], { to: TensorType.FLOAT }) : logits;
  const logSoftmax = g.op('LogSoftmax', [asFloat], { axis: 1 });
  g.op('GatherElements', [logSoftmax, referenceIds], { axis: 1 }, ['reference_logprobs']);
  g.output('reference_logprobs', TensorType.FLOAT, ['rows', 1]);
  return encodeModel(g.model('vocab_log_softmax', 17));
}

export class VocabLogSoftmax {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly type: LogitsType,
  ) {}

  static async create(type: LogitsType, intraOpNumThreads: number): Promise<VocabLogSoftmax> {
    const session = await ort.InferenceSession.create(normaliserGraph(type), {
      intraOpNumThreads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new VocabLogSoftmax(session, type);
  }

  /** Per pick, the log-probability of each of its tokens over the full vocabulary, in pick order. */
  async logprobs(logits: ort.Tensor, picks: LogitsPick[]): Promise<number[][]> {
    if (picks.length === 0) return [];
    if (logits.type !== this.type)
      throw new BackendError(`the model's logits are ${logits.type}, expected ${this.type}`, 502);
    const [batch, seq, vocab] = logits.dims;
    const data = logits.data as LogitsData;
    const read = this.type === 'float16' ? (i: number) => halfToFloat(data[i]) : (i: number) => data[i];
    const offsets = picks.map((p) => {
      if (p.row >= batch || p.position < 0 || p.position >= seq) {
        throw new BackendError(
          `logits position ${p.position} of row ${p.row} is outside the model's output [${logits.dims.join(', ')}]`,
          502,
        );
      }
      for (const id of p.tokenIds) {
        if (!(id >= 0 && id < vocab))
          throw new BackendError(`token id ${id} is outside the model's ${vocab} logits`, 502);
      }
      return (p.row * seq + p.position) * vocab;
    });
    // Rows in the order asked: the logits tensor itself when the picks are all of it in order, else a copy of those rows.
    const wholeTensor = picks.length === batch * seq && offsets.every((offset, i) => offset === i * vocab);
    let rows: LogitsData;
    if (wholeTensor) rows = data;
    else {
      rows = this.type === 'float16' ? new Uint16Array(picks.length * vocab) : new Float32Array(picks.length * vocab);
      offsets.forEach((offset, i) => rows.set(data.subarray(offset, offset + vocab), i * vocab));
    }
    const referenceIds = BigInt64Array.from(picks, (p) => BigInt(p.tokenIds[0] ?? 0));
    const out = await this.session.run({
      logits: new ort.Tensor(this.type, rows, [picks.length, vocab]),
      reference_ids: new ort.Tensor('int64', referenceIds, [picks.length, 1]),
    });
    const referenceLogprobs = out.reference_logprobs.data as Float32Array;
    return picks.map((p, i) => {
      let logNormaliser = read(offsets[i] + p.tokenIds[0]) - referenceLogprobs[i];
      // A reference token with no mass (a -inf logit) says nothing about the normaliser: compute it here instead.
      if (!Number.isFinite(logNormaliser)) logNormaliser = logSumExp(read, offsets[i], vocab);
      return p.tokenIds.map((id) => read(offsets[i] + id) - logNormaliser);
    });
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
