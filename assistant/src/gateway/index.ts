// The model gateway (docs/MODELS.md): what the rest of the product needs of it.
export { isInteractive, type ModelCaller, splitCaller, withCaller } from './caller';
export { type GatewaySettings, readGatewaySettings, UPSTREAM_NAMES, type UpstreamName } from './config';
export { GatewayError } from './errors';
export { listModelCalls, type ModelCallRow } from './ledger';
export { type GatewayOptions, type RunningGateway, startGateway } from './server';
