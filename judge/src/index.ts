// systemone-judge as a library: wire types, validation, rendering, the engine, backends, the server and config.
export * from './shared/field-error';
export * from './shared/api-key';
export * from './protocol/types';
export { ApiError, badRequest, schemaError, defaultErrorType, type ApiErrorOptions } from './protocol/errors';
export { validateRequest, jsonNestingDepth } from './protocol/validate';
export * from './protocol/limits';
export * from './engine/backend';
export * from './engine/render';
export { scoreInGroups, plannedGroups, balancedGroups, logNormalise, type GroupScorer } from './engine/groups';
export * from './engine/readout';
export * from './engine/engine';
export * from './backends';
export { OpenAIBackend, createOpenAIBackend, type OpenAIBackendOptions } from './backends/openai';
export { foldTopLogprobs, type TopLogprob } from './backends/openai/fold';
export { RemoteBackend, createRemoteBackend, type RemoteBackendOptions } from './backends/remote';
export { startJudgeServer, type JudgeServer, type ServerOptions, type LogLine } from './server';
export { Admission, DEFAULT_ADMISSION, type AdmissionSettings, type AdmissionStats } from './server/admission';
export { isLoopbackAddress, type PlaygroundSettings, type PlaygroundStatus } from './server/playground';
export {
  calibrate,
  calibrationReport,
  reliabilitySvg,
  fitTemperature,
  measure,
  parseLabelledJsonl,
  readCalibrationFile,
  type CalibrationFile,
  type CalibrationResult,
  type LabelledLine,
  type Metrics,
} from './calibration';
export { loadConfig, parseConfig, ConfigError, type JudgeConfig } from './config';
export { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server/limits';
export * from './keys';
