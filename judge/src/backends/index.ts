// Backend selection: one creator per kind (./kinds.ts lists them). Each backend lives in its own folder, with its
// options and their parsing in options.ts.
import type { Backend } from '../engine/backend';
import { backendKindList, isBackendKind, type BackendKind } from './kinds';
import { createOpenAIBackend } from './openai';
import type { OnnxBackendOptions } from './onnx/options';
import type { OpenAIBackendOptions } from './openai/options';
import { createRemoteBackend } from './remote';
import type { RemoteBackendOptions } from './remote/options';

export { BACKEND_KINDS, type BackendKind } from './kinds';

export type OpenAIBackendConfig = { kind: 'openai' } & OpenAIBackendOptions;
export type RemoteBackendConfig = { kind: 'remote' } & RemoteBackendOptions;
/** The local ONNX backend's options (./onnx/options.ts), validated by the config loader. */
export type OnnxBackendConfig = { kind: 'onnx' } & OnnxBackendOptions;

export type BackendConfig = OpenAIBackendConfig | RemoteBackendConfig | OnnxBackendConfig;

type ConfigOf<K extends BackendKind> = Extract<BackendConfig, { kind: K }>;

const CREATORS: { [K in BackendKind]: (config: ConfigOf<K>) => Promise<Backend> } = {
  openai: createOpenAIBackend,
  remote: createRemoteBackend,
  onnx: async (config) => {
    // Loaded on demand: the native ONNX Runtime is only needed by this backend (and only in its workers).
    const { createOnnxBackendFromConfig } = await import('./onnx');
    return createOnnxBackendFromConfig(config as unknown as Record<string, unknown>);
  },
};

export async function createBackend(config: BackendConfig): Promise<Backend> {
  if (!isBackendKind(config.kind)) {
    throw new Error(`backend.kind "${String(config.kind)}" is not available in this build (${backendKindList()})`);
  }
  const create = CREATORS[config.kind] as (config: BackendConfig) => Promise<Backend>;
  return create(config);
}
