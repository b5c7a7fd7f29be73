// Recurring actions: instructions the agent runs for a user on a schedule.
export * from './scheduled-actions';
