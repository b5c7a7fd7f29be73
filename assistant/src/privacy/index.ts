// Privacy: forgetting a user's data.
export * from './forget';
export * from './forget-confirmed';
export * from './scrub';
export * from './executions';
