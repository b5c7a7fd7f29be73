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

export interface RunRequest {
  /** One token list per row; rows are left-padded to the longest, so every row ends in the last column. */
  rows: (readonly number[])[];
  /** Per row: the position of its first token. */
  startPositions: number[];
  /** Per row: the attention mask over its own past (1 = real, 0 = padding). */
  pastMasks: number[][];
  past?: KvTensors;
  prefix?: KvTensors;
  wantPresent: boolean;
  /** False for the state pass, which needs only the KV (with keepLast 1, its LM head runs on one position). */
  wantLogits?: boolean;
  /** Logits are needed for the last this many columns only (graphs with a logits_to_keep input). Default: all. */
  keepLast?: number;
}

export interface RunOutput {
  /** Present unless the run asked for none. */
  logits: ort.Tensor;
  present?: KvTensors;
  /** Columns fed (the padded width) and how many of the last ones have logits. */
  width: number;
  kept: number;
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
      for (let c = 0; c < width; c++) {
        const i = c - padding; // index into the row's own tokens; < 0 for padding
        ids.push(i >= 0 ? row[i] : m.padId);
        mask.push(i >= 0 ? 1 : 0);
        positions.push(Math.min(req.startPositions[r] + Math.max(i, 0), m.maxPositions - 1));
      }
    });
    const feeds: Record<string, ort.Tensor> = { input_ids: int64Tensor(ids, [batch, width]) };
    if (m.inputs.has('attention_mask')) feeds.attention_mask = int64Tensor(mask, [batch, pastLength + width]);
    if (m.inputs.has('position_ids')) feeds.position_ids = int64Tensor(positions, [batch, width]);
    if (m.inputs.has('use_cache_branch')) feeds.use_cache_branch = new ort.Tensor('bool', [true], [1]);
    const kept = m.inputs.has('logits_to_keep') && req.keepLast !== undefined ? Math.min(req.keepLast, width) : width;
    if (m.inputs.has('logits_to_keep'))
      feeds.logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(BigInt(kept)), []);
    const fetches = req.wantLogits === false ? [] : ['logits'];
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
    return { logits: out.logits, present, width, kept };
  }

  /** Full-vocabulary log-probabilities of each pick's tokens, all normalised in one helper run. */
  logprobsAt(out: RunOutput, picks: ColumnPick[]): Promise<number[][]> {
    const firstKept = out.width - out.kept;
    return this.model.logSoftmax.logprobs(
      out.logits,
      picks.map((p) => ({ row: p.row, position: p.column - firstKept, tokenIds: p.tokenIds })),
    );
  }
}

export interface ColumnPick {
  row: number;
  /** A column of the fed (padded) width. */
  column: number;
  tokenIds: number[];
}
