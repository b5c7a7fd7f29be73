// The context step of the agent: personality (a static system prompt), recent turns, and a per-turn context block.
export * from './context';
