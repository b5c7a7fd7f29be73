// API keys made by `systemone-judge keys`, their usage and limits.
export * from './types';
export * from './format';
export * from './config';
export * from './usage';
export { MemoryKeyStore } from './document';
export { FileKeyStore } from './file-store';
export { PostgresKeyStore, migrateKeyStore, KEYS_SCHEMA } from './postgres-store';
export { openKeyStore } from './store';
export { checkLimits, RateBuckets, type Refusal, type LimitName, type WindowCounts } from './limits';
export { KeyAccess, tooManyRequests, type Caller, type KeysOptions } from './access';
