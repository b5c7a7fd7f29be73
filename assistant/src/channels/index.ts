// The channel contract and its channels: Telegram, the webhook, the web chat, Slack.
export * from './contract';
export * from './delivery';
export * from './telegram';
export * from './webhook';
export * from './web-chat';
export * from './slack';
export * from './slack-admit';
export * from './slack-socket';
export * from './slack-turn';
export * from './email';
export * from './email-recipients';
export * from './email-smtp';
export * from './email-turn';
