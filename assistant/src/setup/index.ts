// Readying an installation at start: the assistant's database, and the steps that need a running n8n.
export * from './prepare-database';
export * from './finish-n8n';
