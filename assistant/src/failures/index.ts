// Failure awareness: what failed, when and why, and outages.
export * from './failures';
