// Backend selection: one case per kind. Each backend lives in its own folder.
import type { Backend } from '../engine/backend';
import { createOpenAIBackend, type OpenAIBackendOptions } from './openai';
import type { OnnxBackendOptions } from './onnx/options';
import { createRemoteBackend, type RemoteBackendOptions } from './remote';

export type OpenAIBackendConfig = { kind: 'openai' } & OpenAIBackendOptions;
export type RemoteBackendConfig = { kind: 'remote' } & RemoteBackendOptions;
/** The local ONNX backend's options (./onnx/options.ts), validated by the config loader. */
export type OnnxBackendConfig = { kind: 'onnx' } & OnnxBackendOptions;

export type BackendConfig = OpenAIBackendConfig | RemoteBackendConfig | OnnxBackendConfig;

export const BACKEND_KINDS = ['openai', 'remote', 'onnx'] as const;

export async function createBackend(config: BackendConfig): Promise<Backend> {
  switch (config.kind) {
    case 'openai':
      return createOpenAIBackend(config);
    case 'remote':
      return createRemoteBackend(config);
    case 'onnx': {
      // Loaded on demand: the native ONNX Runtime is only needed by this backend (and only in its workers).
      const { createOnnxBackendFromConfig } = await import('./onnx');
      return createOnnxBackendFromConfig(config as unknown as Record<string, unknown>);
    }
    default:
      throw new Error(`backend.kind "${(config as { kind: string }).kind}" is not available in this build`);
  }
}
