// Memory: what the assistant knows about a user. Stored and changed by store.ts, embedded by embed.ts (through the
// endpoint client in embeddings.ts), found again by recall.ts from the terms of search-terms.ts and the query of
// recall-sql.ts. Writes pass the write gate of gate.ts (its text rules in gate-text.ts). capture.ts gives the
// batches of idle sessions that capture extracts facts and graph items from. consolidate.ts merges and folds them
// nightly; kept.ts lists what is kept, pins and restores.
export { MEMORY_KINDS, type Memory, type MemoryKind } from './model';
export * from './store';
export * from './embeddings';
export * from './embed';
export * from './search-terms';
export * from './recall-sql';
export * from './recall';
export * from './gate-text';
export * from './gate';
export * from './capture';
export * from './consolidate';
export * from './kept';
export * from './summary-request';
export * from './entity-summary-request';
