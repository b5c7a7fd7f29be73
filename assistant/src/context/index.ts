// The context step of the agent: personality, recent turns and relevant memories, as a system prompt.
export * from './context';
