// The backend kinds this build serves: the one list that the config loader, createBackend and their errors use.

export const BACKEND_KINDS = ['openai', 'remote', 'onnx'] as const;

export type BackendKind = (typeof BACKEND_KINDS)[number];

export const isBackendKind = (value: unknown): value is BackendKind =>
  (BACKEND_KINDS as readonly unknown[]).includes(value);

/** The kinds as a sentence: "openai, remote or onnx". */
export const backendKindList = (): string => `${BACKEND_KINDS.slice(0, -1).join(', ')} or ${BACKEND_KINDS.at(-1)}`;
