// The minute tick and what it starts: reminders, the heartbeat, recurring actions, briefings, and delivery.
export * from './tick';
export * from './heartbeat';
export * from './briefing';
export * from './deliver';
