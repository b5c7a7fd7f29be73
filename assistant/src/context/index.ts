// The context step of the agent: personality (a static system prompt), recent turns, and a per-turn context block
// (with what the knowledge graph holds about the people and things the message names, graph-context.ts).
export * from './context';
export * from './graph-context';
