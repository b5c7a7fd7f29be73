// Voice messages: a Telegram voice note downloaded and transcribed through an OpenAI-compatible endpoint.
export * from './transcribe';
export * from './telegram-file';
export * from './voice-note';
