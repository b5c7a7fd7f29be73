// The knowledge graph: entities unique per user, typed relations with validity times, neighbourhood queries.
export * from './graph';
