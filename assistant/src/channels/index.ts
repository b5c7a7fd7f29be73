// The channel contract and its channels: Telegram, the webhook, the web chat.
export * from './contract';
export * from './delivery';
export * from './telegram';
export * from './webhook';
export * from './web-chat';
