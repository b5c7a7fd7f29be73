// Pending questions: what a run asked the user and waits on.
export * from './pending-questions';
export * from './approvals';
