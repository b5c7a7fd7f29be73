// Identities: who is talking; the channel (telegram/api) is fixed by the entry point.
export * from './identities';
export * from './link-owner';
