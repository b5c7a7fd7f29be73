// The labelled data `calibrate` reads: JSON Lines, one System One request per line plus the true answers.
//
//   {"model"?: "jev-latest", "state": …, "questions": {<name>: <question>, …},
//    "labels": {<name>: <label>, …},
//    "answers"?: {<name>: <answer>, …}}
//
// labels: noul → true | false; choice → the option key; score → the level index (0 = lowest) or the level itself
// when it is a string. Questions without a label are asked but not measured.
// answers (optional): the System One answers this request already got from the model *without* calibration
// (temperature 1), e.g. from a log. When present the line is not sent to the backend.
import { DEFAULT_ALIAS } from '../engine/engine';
import { FieldError } from '../shared/field-error';
import type { Question, SystemOneRequest } from '../protocol/types';
import type { Example } from './metrics';

export class CalibrationDataError extends FieldError {}

export interface LabelledLine {
  /** 1-based line number in the file. */
  line: number;
  /** The request body (model defaulted to jev-latest). */
  body: Record<string, unknown>;
  labels: Record<string, unknown>;
  answers?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parse the JSONL text; blank lines are skipped. Throws CalibrationDataError naming `<source>:<line> <field>`. */
export function parseLabelledJsonl(text: string, source = 'data'): LabelledLine[] {
  const lines: LabelledLine[] = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    const at = `${source}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new CalibrationDataError(at, `not valid JSON: ${(error as Error).message}`);
    }
    if (!isObject(value)) throw new CalibrationDataError(at, 'must be a JSON object');
    const { labels, answers, ...body } = value;
    if (!isObject(labels) || Object.keys(labels).length === 0) {
      throw new CalibrationDataError(`${at} labels`, 'must be an object naming at least one question');
    }
    if (answers !== undefined && !isObject(answers)) {
      throw new CalibrationDataError(`${at} answers`, 'must be an object of System One answers');
    }
    body.model ??= DEFAULT_ALIAS;
    lines.push({ line: index + 1, body, labels, answers });
  });
  if (lines.length === 0) throw new CalibrationDataError(source, 'has no labelled lines');
  return lines;
}

/** The option keys of a question, in the engine's order (engine/render.ts). */
export function optionKeys(question: Question): string[] {
  if (question.type === 'noul') return ['true', 'false'];
  if (question.type === 'choice') return Object.keys(question.criteria);
  return question.criteria.map((_, i) => String(i));
}

function labelIndex(question: Question, label: unknown, field: string): number {
  if (question.type === 'noul') {
    if (typeof label !== 'boolean')
      throw new CalibrationDataError(field, `must be true or false, got ${JSON.stringify(label)}`);
    return label ? 0 : 1;
  }
  if (question.type === 'choice') {
    const keys = optionKeys(question);
    const index = typeof label === 'string' ? keys.indexOf(label) : -1;
    if (index === -1) {
      throw new CalibrationDataError(
        field,
        `must be one of the options ${JSON.stringify(keys)}, got ${JSON.stringify(label)}`,
      );
    }
    return index;
  }
  const levels = question.criteria;
  if (typeof label === 'number' && Number.isInteger(label) && label >= 0 && label < levels.length) return label;
  if (typeof label === 'string' && levels.includes(label)) return levels.indexOf(label);
  throw new CalibrationDataError(
    field,
    `must be a level index 0..${levels.length - 1} or one of the levels, got ${JSON.stringify(label)}`,
  );
}

function probabilityOf(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new CalibrationDataError(field, `must be a probability in [0, 1], got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The distribution an answer gives, in option order, renormalised. */
function answerDistribution(question: Question, answer: unknown, field: string): number[] {
  if (!isObject(answer)) throw new CalibrationDataError(field, 'is missing (every labelled question needs its answer)');
  if (answer.type !== question.type) {
    throw new CalibrationDataError(
      `${field}.type`,
      `must be ${JSON.stringify(question.type)}, got ${JSON.stringify(answer.type)}`,
    );
  }
  let p: number[];
  if (question.type === 'noul') {
    const yes = probabilityOf(answer.noul, `${field}.noul`);
    p = [yes, 1 - yes];
  } else {
    const probabilities = answer.probabilities;
    if (!isObject(probabilities)) throw new CalibrationDataError(`${field}.probabilities`, 'must be an object');
    p = optionKeys(question).map((key) =>
      probabilityOf(
        Object.hasOwn(probabilities, key) ? probabilities[key] : undefined,
        `${field}.probabilities.${key}`,
      ),
    );
  }
  const total = p.reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new CalibrationDataError(field, 'has no probability mass');
  return p.map((x) => x / total);
}

/** One example per labelled question of a line, given the validated request and its (uncalibrated) answers. */
export function examplesOf(
  line: LabelledLine,
  request: SystemOneRequest,
  answers: Record<string, unknown>,
  source = 'data',
): Example[] {
  const at = `${source}:${line.line}`;
  return Object.entries(line.labels).map(([name, label]) => {
    if (!Object.hasOwn(request.questions, name)) {
      throw new CalibrationDataError(`${at} labels.${name}`, 'names no question of this line');
    }
    const question = request.questions[name];
    return {
      type: question.type,
      label: labelIndex(question, label, `${at} labels.${name}`),
      probabilities: answerDistribution(
        question,
        Object.hasOwn(answers, name) ? answers[name] : undefined,
        `${at} answers.${name}`,
      ),
    };
  });
}

/** A seeded, deterministic split of `count` lines: the same seed and count always hold out the same lines. */
export function splitLines(count: number, holdout: number, seed: number): { train: number[]; holdout: number[] } {
  let state = seed >>> 0;
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const held = Math.round(count * holdout);
  return { holdout: order.slice(0, held).sort((a, b) => a - b), train: order.slice(held).sort((a, b) => a - b) };
}
