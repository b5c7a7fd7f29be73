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

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
/** Labels tried for more than 26 options, in order. */
const LABEL_CANDIDATES = [...LETTERS, ...LETTERS.flatMap((a) => LETTERS.map((b) => a + b))];

/** The label a probe asks for that its prompt never offers: outside any top-k, so back only if honoured. */
export const OUTSIDE_LABEL = 'Z';

export class LabelTokenIds {
  /** Label → its single token id, or null when it is not one token (or the server has no tokenizer). */
  private readonly ids = new Map<string, number | null>();
  /** The server answered 404/405 for /tokenize: it has no tokenizer route. */
  private noRoute = false;
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
   * `count` labels that are single tokens of the server's tokenizer with distinct ids, in order from A…Z then
   * AA…ZZ (two-letter labels many tokenizers hold as one token); undefined when there are not enough or the server
   * cannot tell. Each candidate is tokenized once per process.
   */
  async singleTokenLabels(count: number, signal: AbortSignal): Promise<string[] | undefined> {
    const labels: string[] = [];
    const used = new Set<number>();
    for (const candidate of LABEL_CANDIDATES) {
      if (labels.length === count) break;
      const ids = await this.of([candidate], signal);
      if (this.unknown(candidate)) return undefined;
      if (!ids || used.has(ids[0])) continue;
      used.add(ids[0]);
      labels.push(candidate);
    }
    return labels.length === count ? labels : undefined;
  }

  /** Whether the server could not be asked about `label` (it failed, or has no tokenizer route). */
  private unknown(label: string): boolean {
    return !this.ids.has(label) || this.noRoute;
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
    if (response.status === 404 || response.status === 405) this.noRoute = true;
    if (!response.ok) return null;
    const tokens = ((await response.json().catch(() => ({}))) as { tokens?: unknown }).tokens;
    return Array.isArray(tokens) && tokens.length === 1 && typeof tokens[0] === 'number' ? tokens[0] : null;
  }
}
