// The outbound guard: the one gate for fetching URLs a user gave (see docs/ASSISTANT.md, "The outbound guard").
export * from './guard';
export * from './settings';
export { canonicalAddress, addressRefusal } from './addresses';
