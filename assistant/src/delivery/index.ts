// The one path for everything the assistant says on its own: the outbox, and sending on each channel.
export * from './outbox';
export * from './send';
