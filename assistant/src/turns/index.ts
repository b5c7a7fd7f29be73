// Conversation turns: stored on arrival, answered or failed by the run, and the recent ones loaded back as history.
export * from './turns';
export * from './lifecycle';
export * from './attachments';
