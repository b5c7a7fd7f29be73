// The ONNX backend's options and their validation, naming the exact field on every error. The config loader calls
// this when the server starts, so a bad model directory is refused with the rest of the config; nothing here loads
// the native ONNX Runtime.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FieldError } from '../../shared/field-error';

export interface OnnxModelOptions {
  /** Pinned, versioned id, e.g. "judge-onnx-2026-11-01". */
  id: string;
  /** The model directory (model.onnx, tokenizer.json, tokenizer_config.json, config.json). */
  dir: string;
  description?: string;
  releaseDate?: string;
  /** Prompts in the model's chat template: true requires one, false never; absent: when the directory has one. */
  chatTemplate?: boolean;
  /**
   * Accept a graph whose scores shift with what is batched beside them (int8 dynamic quantization: one activation
   * scale per batch). Off by default: such a model is refused at load.
   */
  batchDependentScores?: boolean;
}

export interface OnnxBackendOptions {
  models: OnnxModelOptions[];
  /** Threads one session.run may use (ORT's intra-op pool). Default 0: ORT's choice (all cores). */
  intraOpNumThreads?: number;
  /** Byte budget of each inference worker's state-KV cache; 0 disables it. Default 256 MiB. */
  kvCacheBytes?: number;
  /** Inference worker threads, each with its own session of every model and its own KV cache. Default 1. */
  workers?: number;
}

export const DEFAULT_KV_CACHE_BYTES = 256 * 1024 * 1024;

/** The files a model directory must hold. */
export const REQUIRED_MODEL_FILES = ['model.onnx', 'tokenizer.json', 'config.json'] as const;

export class OnnxConfigError extends FieldError {}

function wholeNumber(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new OnnxConfigError(field, `must be a whole number ≥ ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new OnnxConfigError(field, 'must be a non-empty string');
  return value;
}

/** Refuses a model directory that is missing or lacks one of the required files. */
export function checkModelDir(dir: string, field: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new OnnxConfigError(field, `${dir} is not a directory`);
  for (const file of REQUIRED_MODEL_FILES) {
    if (!existsSync(join(dir, file))) throw new OnnxConfigError(field, `model directory ${dir} has no ${file}`);
  }
}

const KNOWN_KEYS = new Set(['kind', 'models', 'intraOpNumThreads', 'kvCacheBytes', 'workers']);
const KNOWN_MODEL_KEYS = new Set(['id', 'dir', 'description', 'releaseDate', 'chatTemplate', 'batchDependentScores']);

/**
 * `raw` is the backend block of the config (`{kind: "onnx", models: [...], ...}`); `base` names it in errors.
 * With `checkDirs` (the default), every model directory must exist and hold the required files.
 */
export function parseOnnxBackendOptions(
  raw: Record<string, unknown>,
  base = 'backend',
  { checkDirs = true }: { checkDirs?: boolean } = {},
): OnnxBackendOptions {
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) throw new OnnxConfigError(`${base}.${key}`, 'is not a setting of the onnx backend');
  }
  const models = raw.models;
  if (!Array.isArray(models) || models.length === 0) {
    throw new OnnxConfigError(`${base}.models`, 'must be a non-empty list of {id, dir}');
  }
  const seen = new Set<string>();
  const parsed: OnnxModelOptions[] = models.map((entry: unknown, i) => {
    const field = `${base}.models[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw new OnnxConfigError(field, 'must be an object');
    const m = entry as Record<string, unknown>;
    for (const key of Object.keys(m)) {
      if (!KNOWN_MODEL_KEYS.has(key)) throw new OnnxConfigError(`${field}.${key}`, 'is not a model setting');
    }
    const id = optionalString(m.id, `${field}.id`);
    const dir = optionalString(m.dir, `${field}.dir`);
    if (!id) throw new OnnxConfigError(`${field}.id`, 'is required');
    if (!dir) throw new OnnxConfigError(`${field}.dir`, 'is required');
    if (seen.has(id)) throw new OnnxConfigError(`${field}.id`, `"${id}" is listed twice`);
    seen.add(id);
    const releaseDate = optionalString(m.releaseDate, `${field}.releaseDate`);
    if (releaseDate && !/^\d{4}-\d{2}-\d{2}$/.test(releaseDate))
      throw new OnnxConfigError(`${field}.releaseDate`, 'must be a date YYYY-MM-DD');
    if (m.chatTemplate !== undefined && typeof m.chatTemplate !== 'boolean')
      throw new OnnxConfigError(
        `${field}.chatTemplate`,
        `must be true or false, got ${JSON.stringify(m.chatTemplate)}`,
      );
    if (m.batchDependentScores !== undefined && typeof m.batchDependentScores !== 'boolean')
      throw new OnnxConfigError(
        `${field}.batchDependentScores`,
        `must be true or false, got ${JSON.stringify(m.batchDependentScores)}`,
      );
    if (checkDirs) checkModelDir(dir, `${field}.dir`);
    const description = optionalString(m.description, `${field}.description`);
    return {
      id,
      dir,
      description,
      releaseDate,
      ...(m.chatTemplate === undefined ? {} : { chatTemplate: m.chatTemplate }),
      ...(m.batchDependentScores === undefined ? {} : { batchDependentScores: m.batchDependentScores }),
    };
  });
  return {
    models: parsed,
    intraOpNumThreads: wholeNumber(raw.intraOpNumThreads, `${base}.intraOpNumThreads`, 0),
    kvCacheBytes: wholeNumber(raw.kvCacheBytes, `${base}.kvCacheBytes`, 0),
    workers: wholeNumber(raw.workers, `${base}.workers`, 1),
  };
}
