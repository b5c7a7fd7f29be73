// The experts: the three shipped ones and their models (registry), the catalogue of installable ones, their workflows
// (rendered from the main agent's), installing with the operator's approval and removing.
export * from './registry';
export * from './catalogue';
export * from './expert-workflow';
export * from './install';
