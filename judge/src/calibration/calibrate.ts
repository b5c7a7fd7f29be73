// Fit one temperature per question type on labelled requests, and measure before/after on the fit's own lines and
// on a held-out share of them. The answers come from the line itself ("answers") or from `judge`, which must answer
// at temperature 1 (the `calibrate` command builds an engine without temperatures for this).
import type { QuestionType, SystemOneResponse } from '../protocol/types';
import { validateRequest } from '../protocol/validate';
import { ApiError } from '../protocol/errors';
import { CalibrationDataError, examplesOf, splitLines, type LabelledLine } from './data';
import type { CalibrationFile, SplitMetrics, TypeMetrics } from './file';
import { CALIBRATION_KIND } from './file';
import {
  fitTemperature,
  measure,
  reliabilityBins,
  withTemperature,
  type Example,
  type ReliabilityBin,
} from './metrics';

export const QUESTION_TYPES: QuestionType[] = ['noul', 'choice', 'score'];

export interface CalibrateOptions {
  lines: LabelledLine[];
  /** Share of lines held out from the fit, in [0, 1). */
  holdout: number;
  seed: number;
  /** Answers a line without "answers" (at temperature 1). */
  judge?: (body: Record<string, unknown>, line: LabelledLine) => Promise<SystemOneResponse>;
  /** Lines judged at once (default 4). */
  concurrency?: number;
  /** How the data is named in errors and in the result (default "data"). */
  source?: string;
  /** Called after each judged line. */
  progress?: (done: number, total: number) => void;
}

export interface ReliabilityPanel {
  type: QuestionType;
  temperature: number;
  /** Which answers the panel shows: the holdout when there is one, else the training lines. */
  split: 'holdout' | 'train';
  before: ReliabilityBin[];
  after: ReliabilityBin[];
  eceBefore: number;
  eceAfter: number;
}

export interface CalibrationResult {
  file: CalibrationFile;
  reliability: ReliabilityPanel[];
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function metricsOf(examples: Example[], temperatures: Partial<Record<QuestionType, number>>): SplitMetrics {
  const split: SplitMetrics = {};
  for (const type of QUESTION_TYPES) {
    const ofType = examples.filter((e) => e.type === type);
    if (ofType.length === 0) continue;
    split[type] = { before: measure(ofType), after: measure(ofType, temperatures[type] ?? 1) };
  }
  const all: TypeMetrics = {
    before: measure(examples),
    after: { n: examples.length, ece: NaN, brier: NaN, logLoss: NaN },
  };
  // "all" after calibration: each answer at its own type's temperature.
  if (examples.length > 0) {
    const rescaled = examples.map((e) => ({
      ...e,
      probabilities: withTemperature(e.probabilities, temperatures[e.type] ?? 1),
    }));
    all.after = measure(rescaled);
  }
  split.all = all;
  return split;
}

export async function calibrate(options: CalibrateOptions): Promise<CalibrationResult> {
  const { lines, holdout, seed } = options;
  const source = options.source ?? 'data';
  if (!(holdout >= 0 && holdout < 1)) throw new RangeError(`holdout must be in [0, 1), got ${holdout}`);
  const models = new Set<string>();
  let done = 0;
  const perLine = await mapLimit(lines, options.concurrency ?? 4, async (line) => {
    const at = `${source}:${line.line}`;
    try {
      const request = validateRequest(line.body);
      let answers = line.answers;
      if (!answers) {
        if (!options.judge) throw new CalibrationDataError(at, 'has no "answers" and there is no backend to ask');
        const response = await options.judge(line.body, line);
        models.add(response.model);
        answers = response.answers;
        options.progress?.(++done, lines.length);
      }
      return examplesOf(line, request, answers, source);
    } catch (error) {
      if (error instanceof ApiError) throw new CalibrationDataError(at, `the request is refused: ${error.message}`);
      if (error instanceof CalibrationDataError) throw error;
      throw new Error(`${at}: ${(error as Error).message}`, { cause: error });
    }
  });

  const split = splitLines(lines.length, holdout, seed);
  const train = split.train.flatMap((i) => perLine[i]);
  const held = split.holdout.flatMap((i) => perLine[i]);

  const temperatures: Partial<Record<QuestionType, number>> = {};
  for (const type of QUESTION_TYPES) {
    const ofType = train.filter((e) => e.type === type);
    if (ofType.length > 0) temperatures[type] = fitTemperature(ofType);
  }

  const shown = held.length > 0 ? held : train;
  const reliability: ReliabilityPanel[] = QUESTION_TYPES.filter((type) => temperatures[type] !== undefined).map(
    (type) => {
      const ofType = shown.filter((e) => e.type === type);
      const t = temperatures[type]!;
      return {
        type,
        temperature: t,
        split: held.length > 0 ? 'holdout' : 'train',
        before: reliabilityBins(ofType),
        after: reliabilityBins(ofType, t),
        eceBefore: measure(ofType).ece,
        eceAfter: measure(ofType, t).ece,
      };
    },
  );

  const file: CalibrationFile = {
    kind: CALIBRATION_KIND,
    version: 1,
    created: new Date().toISOString(),
    models: [...models].sort(),
    temperatures,
    data: { source, lines: lines.length, answers: train.length + held.length },
    split: { seed, holdout, trainLines: split.train.length, holdoutLines: split.holdout.length },
    metrics: {
      train: metricsOf(train, temperatures),
      ...(held.length > 0 ? { holdout: metricsOf(held, temperatures) } : {}),
    },
  };
  return { file, reliability };
}
