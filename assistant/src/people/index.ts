// Several people on one install: the DM policy per channel, the gate every channel calls first (admit), pairing codes,
// and the owner's list of people.
export * from './admit';
export * from './dm-policy';
export * from './pairing';
export * from './people';
