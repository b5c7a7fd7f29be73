// Calibration: fit per-type temperatures on labelled requests, measure them, and load the result.
export * from './metrics';
export * from './data';
export * from './file';
export {
  calibrate,
  QUESTION_TYPES,
  type CalibrateOptions,
  type CalibrationResult,
  type ReliabilityPanel,
} from './calibrate';
export { calibrationReport } from './report';
export { reliabilitySvg } from './svg';
