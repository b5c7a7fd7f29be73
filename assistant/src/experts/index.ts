// The experts: the three shipped ones and their models (registry), and the catalogue of installable ones.
export * from './registry';
export * from './catalogue';
