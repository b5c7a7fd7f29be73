// The token counts a provider reports in an OpenAI-compatible answer (JSON, or the chunks of a stream).
export interface ReportedUsage {
  prompt: number | null;
  output: number | null;
  cached: number | null;
  /** What the call cost in US dollars, where the provider says so (OpenRouter's usage.cost). */
  costUsd?: number | null;
}

export const NO_USAGE: ReportedUsage = { prompt: null, output: null, cached: null };

const count = (value: unknown): number | null => (typeof value === 'number' && value >= 0 ? value : null);

/** Usage from an answer's `usage` block: chat and completions, embeddings (no output), cached prompt tokens. */
export function usageOf(body: unknown): ReportedUsage | null {
  const usage = (body as { usage?: Record<string, unknown> | null } | null)?.usage;
  if (!usage || typeof usage !== 'object') return null;
  const details = usage.prompt_tokens_details as { cached_tokens?: unknown } | undefined;
  return {
    prompt: count(usage.prompt_tokens ?? usage.input_tokens),
    output: count(usage.completion_tokens ?? usage.output_tokens),
    cached: count(details?.cached_tokens),
    costUsd: typeof usage.cost === 'number' && usage.cost >= 0 ? usage.cost : null,
  };
}

/** The error message of an OpenAI-style error body, or the body's text. */
export function errorMessageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.error?.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 500) || '(no message)';
}
