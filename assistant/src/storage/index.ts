// Storage: connections, the schema's migrations and their runner, and the optional pgvector index.
export * from './db';
export * from './migrations';
export * from './migrate';
export * from './vector-index';
export * from './user-tables';
