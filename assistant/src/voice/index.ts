// Voice messages: a Telegram voice note downloaded, or audio sent to the webhook, transcribed through an
// OpenAI-compatible endpoint.
export * from './transcribe';
export * from './telegram-file';
export * from './voice-note';
export * from './voice-audio';
