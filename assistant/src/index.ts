// The assistant's storage and domain: one module per concern.
export * from './db';
export * from './errors';
export * from './migrations';
export * from './migrate';
export * from './identities';
export * from './settings';
export * from './memories';
export * from './embeddings';
export * from './vector-index';
export * from './graph';
export * from './tasks';
export * from './turns';
export * from './context';
export * from './channel';
