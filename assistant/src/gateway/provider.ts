// What the gateway knows about one provider (a base URL): whether it is Ollama, its slots, the windows of its models,
// whether it has a tokenizer endpoint, and (Ollama) the derived model each model is served as. Learned on first use
// and kept; a failed probe is not kept, so a provider started after the gateway is found on the next call.
import type { GatewaySettings, UpstreamSettings } from './config';
import { countFromTokenizeAnswer, estimateChatPrompt, tokenizerMeasure, type PromptMeasure } from './measure';
import { ensureDerivedModel, isOllama } from './ollama/derived-model';
import type { ChatRequest } from './openai-types';
import { Slots } from './slots';
import { chooseWindow, liveWindowOf, type ModelWindow } from './windows';

const PROBE_TIMEOUT_MS = 5_000;

export interface ServedModel {
  /** The id sent to the provider (for Ollama: the derived model with its window). */
  id: string;
  window: ModelWindow | null;
}

export class Provider {
  readonly root: string;
  private kind?: Promise<'ollama' | 'openai'>;
  private slotsByKind?: Slots;
  private liveWindows?: Promise<Map<string, number>>;
  private tokenizer: 'unknown' | 'messages' | 'none' = 'unknown';
  private readonly derived = new Map<string, Promise<ServedModel>>();

  constructor(
    readonly upstream: UpstreamSettings,
    private readonly settings: GatewaySettings,
  ) {
    this.root = upstream.baseUrl.replace(/\/v1$/, '');
  }

  get baseUrl(): string {
    return this.upstream.baseUrl;
  }

  authHeaders(): Record<string, string> {
    return this.upstream.apiKey ? { authorization: `Bearer ${this.upstream.apiKey}` } : {};
  }

  async isOllama(): Promise<boolean> {
    this.kind ??= isOllama(this.baseUrl).then((yes) => (yes ? 'ollama' : 'openai'));
    return (await this.kind) === 'ollama';
  }

  async slots(): Promise<Slots> {
    this.slotsByKind ??= new Slots(this.settings.slots ?? ((await this.isOllama()) ? 1 : 8));
    return this.slotsByKind;
  }

  /** The model as served, with its window; for Ollama, the derived model is created once if missing. */
  async serve(model: string): Promise<ServedModel> {
    if (await this.isOllama()) {
      let served = this.derived.get(model);
      if (!served) {
        served = this.deriveOllamaModel(model);
        this.derived.set(model, served);
        served.catch(() => this.derived.delete(model));
      }
      return served;
    }
    const live = (await this.readLiveWindows()).get(model) ?? null;
    return { id: model, window: chooseWindow(model, live, this.settings.windowOverrides) };
  }

  /** Forgets the derived model of `model` (Ollama lost it: deleted, or a new install), so the next call creates it. */
  forgetServed(model: string): void {
    this.derived.delete(model);
  }

  /** The prompt's length: the provider's tokenizer where it has one, else the estimate. */
  async measureChat(request: ChatRequest, model: string): Promise<PromptMeasure> {
    if (this.tokenizer !== 'none' && !(await this.isOllama())) {
      const count = await this.tokenizeMessages(request, model);
      if (count !== null) return tokenizerMeasure(count);
    }
    return estimateChatPrompt(request);
  }

  private async deriveOllamaModel(model: string): Promise<ServedModel> {
    const { promptBudgetTokens, maxOutputTokens, ollamaMaxContext } = this.settings;
    const derived = await ensureDerivedModel(this.baseUrl, model, {
      numCtx: promptBudgetTokens + maxOutputTokens,
      memoryCapTokens: ollamaMaxContext,
    });
    return { id: derived.name, window: { tokens: derived.numCtx, source: 'live' } };
  }

  /** vLLM and SGLang: POST /tokenize {model, messages} → {count}. Anything else: no tokenizer, asked once. */
  private async tokenizeMessages(request: ChatRequest, model: string): Promise<number | null> {
    try {
      const response = await fetch(`${this.root}/tokenize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.authHeaders() },
        body: JSON.stringify({ model, messages: request.messages, tools: request.tools, add_generation_prompt: true }),
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      const count = response.ok ? countFromTokenizeAnswer(await response.json()) : null;
      if (count === null && this.tokenizer === 'unknown' && response.status >= 400 && response.status < 500)
        this.tokenizer = 'none';
      if (count !== null) this.tokenizer = 'messages';
      return count;
    } catch {
      return null;
    }
  }

  /** Windows a `/models` list reports (OpenRouter context_length, vLLM max_model_len, …); none is an empty map. */
  private readLiveWindows(): Promise<Map<string, number>> {
    this.liveWindows ??= (async () => {
      const windows = new Map<string, number>();
      const response = await fetch(`${this.baseUrl}/models`, {
        headers: this.authHeaders(),
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      if (!response.ok) return windows;
      const body = (await response.json()) as { data?: Array<Record<string, unknown>> };
      for (const entry of body.data ?? []) {
        const window = liveWindowOf(entry);
        if (typeof entry.id === 'string' && window !== null) windows.set(entry.id, window);
      }
      return windows;
    })();
    const probe = this.liveWindows;
    probe.catch(() => {
      if (this.liveWindows === probe) this.liveWindows = undefined;
    });
    return probe.catch(() => new Map());
  }
}
