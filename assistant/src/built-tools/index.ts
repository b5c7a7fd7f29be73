// Built tools: a spec the model fills, its workflow rendered from templates, and the way from draft to live.
export * from './spec';
export * from './tool-workflow';
export * from './registry';
