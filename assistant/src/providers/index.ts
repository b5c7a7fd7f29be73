// The AI providers the chat model can use, and the installer's key check.
export * from './providers';
export * from './check-key';
