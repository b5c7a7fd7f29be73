// One session.run: the feeds built from token rows (left-padded, with masks, positions and KV), the outputs fetched,
// the tokens counted; and reading label log-probabilities out of the logits. Every layout strategy runs the model
// only through here. Runs inside an inference worker.
import * as ort from 'onnxruntime-node';
import { cancelledError } from './job';
import type { LoadedModel } from './model-dir';
import { emptyKv, int64Tensor, type KvTensors } from './tensors';

/** Counters of what was fed to session.run, for usage and tests. */
export interface OnnxRunStats {
  runs: number;
  /** Real (non-padding) input tokens. */
  tokens: number;
  /** Padding slots fed alongside them in ragged batches. */
  paddingTokens: number;
}

export const zeroStats = (): OnnxRunStats => ({ runs: 0, tokens: 0, paddingTokens: 0 });

export function addStats(into: OnnxRunStats, add: OnnxRunStats): void {
  into.runs += add.runs;
  into.tokens += add.tokens;
  into.paddingTokens += add.paddingTokens;
}

/** A position of the fed (padded) width whose logits will be read. */
export interface LogitsRead {
  row: number;
  column: number;
}

export interface RunRequest {
  /** One token list per row; rows are left-padded to the longest, so every row ends in the last column. */
  rows: (readonly number[])[];
  /** Per row: the position of its first token. */
  startPositions: number[];
  /**
   * Per row, the lengths of the sequences packed into it, in order (their sum is the row's length). Each packed
   * sequence starts at its row's start position and attends only to itself, the row's past and the prefix (graphs
   * with own_attention_bias). Absent: every row is one sequence.
   */
  packed?: number[][];
  /** Per row: the attention mask over its own past (1 = real, 0 = padding). */
  pastMasks: number[][];
  past?: KvTensors;
  prefix?: KvTensors;
  wantPresent: boolean;
  /** The positions whose logits will be read; none: the run fetches no logits (the state pass). */
  reads: LogitsRead[];
}

export interface RunOutput {
  /** Present when the run asked for reads. */
  logits?: ort.Tensor;
  present?: KvTensors;
  /** Columns fed (the padded width). */
  width: number;
  /** Where a read position's logits are in `logits`: by the flat index `row * width + column`. */
  located: Map<number, { row: number; position: number }>;
}

/** An additive bias on the scores is this negative where a packed sequence must not look (exp gives exactly 0). */
const MASKED = -1e9;

/**
 * The [B, 1, T, past + T] bias that keeps each packed sequence to itself: 0 where the key is in the query's own
 * sequence (or in the row's past), MASKED where it belongs to another sequence of the same row. Padding columns
 * are left to attention_mask.
 */
function packingBias(rows: (readonly number[])[], packed: number[][], width: number, pastLength: number): ort.Tensor {
  const keys = pastLength + width;
  const data = new Float32Array(rows.length * width * keys);
  rows.forEach((row, r) => {
    const sequenceOf = new Int32Array(width).fill(-1);
    let column = width - row.length;
    packed[r].forEach((length, s) => sequenceOf.fill(s, column, (column += length)));
    for (let i = 0; i < width; i++) {
      if (sequenceOf[i] < 0) continue;
      const base = (r * width + i) * keys + pastLength;
      for (let j = 0; j < width; j++) if (sequenceOf[j] !== sequenceOf[i]) data[base + j] = MASKED;
    }
  });
  return new ort.Tensor('float32', data, [rows.length, 1, width, keys]);
}

/** One job's view of its model: how to run it, and its counters. */
export class ModelRun {
  readonly stats = zeroStats();

  constructor(
    readonly model: LoadedModel,
    private readonly cancelled: () => boolean,
  ) {}

  /** Builds the feeds, fetches only the outputs needed, counts the tokens. Refuses to start once cancelled. */
  async run(req: RunRequest): Promise<RunOutput> {
    if (this.cancelled()) throw cancelledError();
    const m = this.model;
    const { layers, heads, headDim, kvType, layout } = m.graph;
    const batch = req.rows.length;
    const width = Math.max(...req.rows.map((r) => r.length));
    const pastLength = req.pastMasks[0].length;
    const ids: number[] = [];
    const mask: number[] = [];
    const positions: number[] = [];
    let real = 0;
    req.rows.forEach((row, r) => {
      real += row.length;
      for (const bit of req.pastMasks[r]) mask.push(bit);
      const padding = width - row.length;
      // Each token's offset in its packed sequence: positions start again at the row's start for each one.
      const offsets = new Int32Array(row.length);
      let at = 0;
      for (const length of req.packed?.[r] ?? [row.length]) for (let i = 0; i < length; i++) offsets[at++] = i;
      for (let c = 0; c < width; c++) {
        const i = c - padding; // index into the row's own tokens; < 0 for padding
        ids.push(i >= 0 ? row[i] : m.padId);
        mask.push(i >= 0 ? 1 : 0);
        positions.push(Math.min(req.startPositions[r] + (i >= 0 ? offsets[i] : 0), m.maxPositions - 1));
      }
    });
    const feeds: Record<string, ort.Tensor> = { input_ids: int64Tensor(ids, [batch, width]) };
    if (m.inputs.has('attention_mask')) feeds.attention_mask = int64Tensor(mask, [batch, pastLength + width]);
    if (m.inputs.has('position_ids')) feeds.position_ids = int64Tensor(positions, [batch, width]);
    if (m.inputs.has('use_cache_branch')) feeds.use_cache_branch = new ort.Tensor('bool', [true], [1]);
    const packs = req.packed?.some((lengths) => lengths.length > 1) ?? false;
    if (packs && !m.graph.packing)
      throw new Error('packed rows need a graph with own_attention_bias and logits_indices');
    if (m.inputs.has('own_attention_bias')) {
      feeds.own_attention_bias = packs
        ? packingBias(req.rows, req.packed!, width, pastLength)
        : new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]);
    }
    const located = this.locateReads(req.reads, width, feeds);
    const fetches = req.reads.length === 0 ? [] : ['logits'];
    if (layout !== 'no-past') {
      const past = req.past ?? emptyKv(layers, batch, heads, headDim, kvType);
      const prefix = req.prefix ?? emptyKv(layers, 1, heads, headDim, kvType);
      for (let l = 0; l < layers; l++) {
        feeds[`past_key_values.${l}.key`] = past[l].key;
        feeds[`past_key_values.${l}.value`] = past[l].value;
        if (layout === 'shared-prefix') {
          feeds[`prefix_key_values.${l}.key`] = prefix[l].key;
          feeds[`prefix_key_values.${l}.value`] = prefix[l].value;
        }
        if (req.wantPresent) fetches.push(`present.${l}.key`, `present.${l}.value`);
      }
    }
    this.stats.runs++;
    this.stats.tokens += real;
    this.stats.paddingTokens += batch * width - real;
    const out = await m.session.run(feeds, fetches);
    const present = req.wantPresent
      ? Array.from({ length: layers }, (_, l) => ({ key: out[`present.${l}.key`], value: out[`present.${l}.value`] }))
      : undefined;
    return { logits: out.logits, present, width, located };
  }

  /**
   * Asks the graph for logits only where they are read, and says where each read lands: logits_indices gathers
   * exactly those positions (one row [1, N, V]); logits_to_keep keeps the last columns from the first read on;
   * otherwise every position comes back.
   */
  private locateReads(
    reads: LogitsRead[],
    width: number,
    feeds: Record<string, ort.Tensor>,
  ): Map<number, { row: number; position: number }> {
    const located = new Map<number, { row: number; position: number }>();
    const inputs = this.model.inputs;
    if (inputs.has('logits_indices')) {
      const indices: number[] = [];
      for (const { row, column } of reads) {
        const flat = row * width + column;
        if (!located.has(flat)) located.set(flat, { row: 0, position: indices.push(flat) - 1 });
      }
      feeds.logits_indices = int64Tensor(indices.length ? indices : [0], [indices.length || 1]);
      return located;
    }
    let firstKept = 0;
    if (inputs.has('logits_to_keep')) {
      firstKept = reads.length ? Math.min(...reads.map((r) => r.column)) : width - 1;
      feeds.logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(BigInt(width - firstKept)), []);
    }
    for (const { row, column } of reads) located.set(row * width + column, { row, position: column - firstKept });
    return located;
  }

  /** Full-vocabulary log-probabilities of each pick's tokens, all normalised in one helper run. */
  logprobsAt(out: RunOutput, picks: ColumnPick[]): Promise<number[][]> {
    if (!out.logits) throw new Error('the run read no logits');
    return this.model.logSoftmax.logprobs(
      out.logits,
      picks.map((p) => {
        const at = out.located.get(p.row * out.width + p.column);
        if (!at) throw new Error(`logits at row ${p.row}, column ${p.column} were not asked for`);
        return { row: at.row, position: at.position, tokenIds: p.tokenIds };
      }),
    );
  }
}

export interface ColumnPick extends LogitsRead {
  tokenIds: number[];
}
