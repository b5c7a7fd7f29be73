// Personality and settings: instance defaults (with the owner's Telegram chat) and per-user overrides.
export * from './settings';
export * from './preferences';
