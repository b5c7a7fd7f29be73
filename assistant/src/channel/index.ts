// The assistant's channels: checking webhook calls and Telegram updates, shaping replies and failures.
export * from './api-key';
export * from './failures';
export * from './http-result';
export * from './telegram-text';
export * from './telegram-update';
export * from './webhook-request';
export * from './turn-answer';
export * from './telegram-webhook';
export * from './typing';
