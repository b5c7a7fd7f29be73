// The local ONNX backend: public entry points.
export { OnnxBackend, createOnnxBackend, createOnnxBackendFromConfig, type ServedModel } from './onnx-backend';
export type { OnnxRunStats } from './feeds-and-run';
export { parseOnnxBackendOptions, OnnxConfigError, type OnnxBackendOptions, type OnnxModelOptions } from './options';
export { detectLayout, type GraphLayout } from './graph-layout';
