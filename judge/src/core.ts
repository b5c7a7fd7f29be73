// The small, dependency-free part of the package that other packages and the n8n nodes import at run time
// (`systemone-judge/core`): the field error base, the API key check, the protocol types and the wire contract's
// limits (and the refusal sentence a client may have to give itself). The main entry
// (`systemone-judge`) also loads the backends and the server.
export * from './shared/field-error';
export * from './shared/api-key';
export type * from './protocol/types';
export * from './protocol/limits';
