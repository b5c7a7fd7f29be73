// Exact label scoring on vLLM: `logprob_token_ids` (vllm-project/vllm#43463) names the tokens whose logprobs the
// server returns for the first generated position, instead of its top-k. The labels' token ids come from the
// server's own tokenizer (POST /tokenize, beside /v1). Older servers ignore the field and newer ones may refuse it:
// the probe uses it only when asking for a label the prompt never offers brings that label back.
export interface TokenizeSettings {
  /** The server root in use (the upstream's, which may fail over). */
  root: () => string;
  apiKey?: string;
  upstreamModel: string;
  timeoutMs: number;
}

/** The label a probe asks for that its prompt never offers: outside any top-k, so back only if honoured. */
export const OUTSIDE_LABEL = 'Z';

export class LabelTokenIds {
  /** Label → its single token id, or null when it is not one token (or the server has no tokenizer). */
  private readonly ids = new Map<string, number | null>();
  constructor(private readonly settings: TokenizeSettings) {}

  /** The token id of every label, or undefined when one of them is not a single token of the server's tokenizer. */
  async of(labels: string[], signal: AbortSignal): Promise<number[] | undefined> {
    const ids: number[] = [];
    for (const label of labels) {
      if (!this.ids.has(label)) {
        const id = await this.single(label, signal);
        if (id === 'unknown') return undefined;
        this.ids.set(label, id);
      }
      const id = this.ids.get(label);
      if (id === null || id === undefined) return undefined;
      ids.push(id);
    }
    return ids;
  }

  /**
   * vLLM's POST /tokenize {model, prompt, add_special_tokens: false} → {tokens: [ids]}: the id when it is one token,
   * null when it is not or the server has no such route (kept), "unknown" when the server failed (asked again).
   */
  private async single(text: string, signal: AbortSignal): Promise<number | null | 'unknown'> {
    const { apiKey, upstreamModel, timeoutMs } = this.settings;
    let response: Response;
    try {
      response = await fetch(`${this.settings.root()}/tokenize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model: upstreamModel, prompt: text, add_special_tokens: false }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      return 'unknown';
    }
    if (response.status >= 500) return 'unknown';
    if (!response.ok) return null;
    const tokens = ((await response.json().catch(() => ({}))) as { tokens?: unknown }).tokens;
    return Array.isArray(tokens) && tokens.length === 1 && typeof tokens[0] === 'number' ? tokens[0] : null;
  }
}
