// The local ONNX backend: public entry points.
import { createOnnxBackend, type OnnxBackend } from './onnx-backend';
import { parseOnnxBackendOptions } from './options';

export {
  OnnxBackend,
  createOnnxBackend,
  type OnnxBackendOptions,
  type OnnxModelOptions,
  type OnnxRunStats,
} from './onnx-backend';
export { parseOnnxBackendOptions, OnnxConfigError } from './options';
export { detectLayout, type GraphLayout } from './model-dir';

/** From the raw `backend` config block: validate, load every model, return the backend. */
export function createOnnxBackendFromConfig(raw: Record<string, unknown>): Promise<OnnxBackend> {
  return createOnnxBackend(parseOnnxBackendOptions(raw));
}
