// Validates the ONNX backend's section of the server config, naming the exact field on every error.
import { FieldError } from '../../shared/field-error';
import type { OnnxBackendOptions, OnnxModelOptions } from './onnx-backend';

export class OnnxConfigError extends FieldError {}

function nonNegativeInteger(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new OnnxConfigError(field, 'must be a whole number ≥ 0');
  }
  return value;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new OnnxConfigError(field, 'must be a non-empty string');
  return value;
}

/** `raw` is the backend block of the config (`{kind: "onnx", models: [...], ...}`); `base` names it in errors. */
export function parseOnnxBackendOptions(raw: Record<string, unknown>, base = 'backend'): OnnxBackendOptions {
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
    const id = optionalString(m.id, `${field}.id`);
    const dir = optionalString(m.dir, `${field}.dir`);
    if (!id) throw new OnnxConfigError(`${field}.id`, 'is required');
    if (!dir) throw new OnnxConfigError(`${field}.dir`, 'is required');
    if (seen.has(id)) throw new OnnxConfigError(`${field}.id`, `"${id}" is listed twice`);
    seen.add(id);
    const releaseDate = optionalString(m.releaseDate, `${field}.releaseDate`);
    if (releaseDate && !/^\d{4}-\d{2}-\d{2}$/.test(releaseDate))
      throw new OnnxConfigError(`${field}.releaseDate`, 'must be a date YYYY-MM-DD');
    return { id, dir, description: optionalString(m.description, `${field}.description`), releaseDate };
  });
  return {
    models: parsed,
    intraOpNumThreads: nonNegativeInteger(raw.intraOpNumThreads, `${base}.intraOpNumThreads`),
    kvCacheBytes: nonNegativeInteger(raw.kvCacheBytes, `${base}.kvCacheBytes`),
  };
}
