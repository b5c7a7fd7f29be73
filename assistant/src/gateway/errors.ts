// The gateway's own errors, answered in OpenAI's envelope {error: {message, type, code, param}} so that every
// OpenAI-compatible client (n8n's chat model, the judge, our transports) shows the message. One class per kind; the
// HTTP status of each is set here and nowhere else.
export type GatewayErrorCode =
  | 'invalid_api_key'
  | 'invalid_request'
  | 'unknown_upstream'
  | 'upstream_not_configured'
  | 'context_length_exceeded'
  | 'prompt_cut'
  | 'upstream_unreachable'
  | 'upstream_timeout'
  | 'ollama_model'
  | 'budget_exceeded';

const STATUS: Record<GatewayErrorCode, number> = {
  invalid_api_key: 401,
  invalid_request: 400,
  unknown_upstream: 404,
  upstream_not_configured: 503,
  context_length_exceeded: 400,
  prompt_cut: 502,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  ollama_model: 502,
  budget_exceeded: 402,
};

export class GatewayError extends Error {
  readonly status: number;

  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = STATUS[code];
  }

  toJSON() {
    return {
      error: {
        message: this.message,
        type: this.status < 500 ? 'invalid_request_error' : 'api_error',
        code: this.code,
        param: this.param ?? null,
      },
    };
  }
}
