// Time for reminders, recurring actions and nudges: pure functions of an injected clock and the user's IANA zone.
export * from './zone';
export * from './when';
export * from './recurrence';
export * from './quiet';
export * from './locale';
