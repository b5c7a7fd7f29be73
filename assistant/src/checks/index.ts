// Silent background checks (the store, the comparison, the run's steps); the fetching part, which needs the web
// tools, is the `assistant-core/checks` entry (observe.ts).
export * from './definition';
export * from './json-path';
export * from './compare';
export * from './checks';
export * from './runs';
