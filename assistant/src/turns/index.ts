// Conversation turns, stored verbatim, and the recent ones loaded back within a token budget.
export * from './turns';
