// n8n's public API: the workflow shapes, the calls the assistant makes, and a fetch-based client for the CLIs.
export * from './workflow-api';
export * from './public-api';
export * from './remove-workflow';
export * from './owner-api-key';
