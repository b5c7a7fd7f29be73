// The assistant's storage and domain: one folder per concern.
export * from './storage';
export * from './errors';
export * from './identities';
export * from './settings';
export * from './memory';
export * from './graph';
export * from './tasks';
export * from './turns';
export * from './pending';
export * from './privacy';
export * from './context';
export * from './channel';
export * from './schedule';
export * from './outbound';
