// calibration.json: what `systemone-judge calibrate` writes and the server loads (config `calibration` or
// JUDGE_CALIBRATION). Only `kind`, `version` and `temperatures` are read back; the rest is the fit's report.
import { readFileSync } from 'node:fs';
import type { Temperatures } from '../engine/readout';
import type { QuestionType } from '../protocol/types';
import type { Metrics } from './metrics';

export const CALIBRATION_KIND = 'systemone-judge-calibration';

export interface TypeMetrics {
  before: Metrics;
  after: Metrics;
}

export type SplitMetrics = Partial<Record<QuestionType | 'all', TypeMetrics>>;

export interface CalibrationFile {
  kind: typeof CALIBRATION_KIND;
  version: 1;
  /** ISO time of the fit. */
  created: string;
  /** The pinned model ids that answered (empty when every line carried its answers). */
  models: string[];
  /** One temperature per question type that had labelled answers. */
  temperatures: Temperatures;
  data: { source: string; lines: number; answers: number };
  split: { seed: number; holdout: number; trainLines: number; holdoutLines: number };
  metrics: { train: SplitMetrics; holdout?: SplitMetrics };
}

export interface LoadedCalibration {
  path: string;
  temperatures: Temperatures;
  models: string[];
}

type Fail = (field: string, reason: string) => Error;

/** Read and check a calibration file; every problem is reported through `fail` naming the field. */
export function readCalibrationFile(path: string, fail: Fail, field = 'calibration'): LoadedCalibration {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw fail(field, `cannot load ${path}: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail(field, `${path} is not a JSON object`);
  const file = raw as Record<string, unknown>;
  if (file.kind !== CALIBRATION_KIND || file.version !== 1) {
    throw fail(
      field,
      `${path} is not a calibration file (kind "${CALIBRATION_KIND}", version 1); ` +
        'make one with "systemone-judge calibrate"',
    );
  }
  const temperatures: Temperatures = {};
  const rawTemperatures = file.temperatures;
  if (typeof rawTemperatures !== 'object' || rawTemperatures === null || Array.isArray(rawTemperatures)) {
    throw fail(`${field}.temperatures`, `must be an object in ${path}`);
  }
  for (const [key, value] of Object.entries(rawTemperatures)) {
    if (key !== 'noul' && key !== 'choice' && key !== 'score') {
      throw fail(`${field}.temperatures.${key}`, `must be noul, choice or score (in ${path})`);
    }
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
      throw fail(`${field}.temperatures.${key}`, `must be a number > 0, got ${JSON.stringify(value)} (in ${path})`);
    }
    temperatures[key] = value;
  }
  const models = Array.isArray(file.models) ? file.models.filter((m): m is string => typeof m === 'string') : [];
  return { path, temperatures, models };
}

/**
 * The config's temperatures with a calibration file's applied. `setting` is the file path (config `calibration` or
 * JUDGE_CALIBRATION). A type set both in `temperatures` and by the file is refused: one source per type.
 */
export function applyCalibration(
  temperatures: Temperatures,
  setting: unknown,
  fail: Fail,
): { temperatures: Temperatures; calibration?: LoadedCalibration } {
  if (setting === undefined || setting === '') return { temperatures };
  if (typeof setting !== 'string')
    throw fail('calibration', `must be the path of a calibration.json, got ${typeof setting}`);
  const calibration = readCalibrationFile(setting, fail);
  for (const type of Object.keys(calibration.temperatures)) {
    if (type in temperatures) {
      throw fail(`temperatures.${type}`, `is also set by the calibration file ${setting}; keep one of them`);
    }
  }
  return { temperatures: { ...temperatures, ...calibration.temperatures }, calibration };
}
