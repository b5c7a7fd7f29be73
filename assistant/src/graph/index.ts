// The knowledge graph: entities merged by name and alias (entities.ts), relations with validity times (relations.ts),
// neighbourhood queries (graph.ts), entity summaries rewritten nightly (entity-summaries.ts), and applying a
// capture's extraction through the memory write gate.
export * from './entities';
export * from './relations';
export * from './graph';
export * from './entity-summaries';
export * from './mentions';
export * from './extraction';
export * from './apply-extraction';
