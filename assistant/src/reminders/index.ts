// Reminders set in the user's words and time zone, fired once by the minute tick.
export * from './reminders';
