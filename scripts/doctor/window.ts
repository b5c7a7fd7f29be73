// The chat model's window and whether the agent's prompt fits it. The window is the one the gateway uses: for
// Ollama, the derived model it created ("<model>-ctx<N>", assistant/src/gateway/ollama/derived-model.ts); else the
// provider's live value from /models, the operator's ASSISTANT_MODEL_WINDOWS, or the gateway's table. The agent's
// fixed prompt (the product's system prompt, the tool instructions and the agent's tools) is estimated as the gateway
// estimates it (characters / 3); with ASSISTANT_MAX_OUTPUT_TOKENS kept for the answer it must fit.
import { systemPrompt } from 'assistant-core';
import { estimateChatPrompt } from '../../assistant/src/gateway/measure';
import { derivedModelName } from '../../assistant/src/gateway/ollama/derived-model';
import { chooseWindow, liveWindowOf, parseWindowOverrides } from '../../assistant/src/gateway/windows';
import { agentTools, toolInstructions } from '../prompt-prefix';
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

export interface WindowCheck {
  /** Tokens, or null when nothing reports one. */
  window: number | null;
  /** Where the window comes from, in words. */
  source: string;
  /** The agent's fixed prompt (system prompt and tools), estimated. */
  agentPromptTokens: number;
  /** null when the window is unknown. */
  fits: boolean | null;
  /** What to change, when it does not fit or leaves the conversation little room. */
  advice: string | null;
  /** Whether the provider is Ollama (the speed probe then reads its own timings). */
  ollama: boolean;
  /** Ollama: the derived model the gateway serves. */
  servedModel: string;
}

/** The agent's fixed prompt as the gateway estimates it. */
export function agentPromptTokens(): number {
  const settings = { assistantName: 'Ada', style: 'Friendly and brief.', language: 'english', timeZone: 'UTC' };
  const system = `${systemPrompt(settings as Parameters<typeof systemPrompt>[0])}\n\n${toolInstructions()}`;
  return estimateChatPrompt({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'Hello' },
    ],
    tools: agentTools() as never,
  }).tokens;
}

async function isOllama(settings: DoctorSettings, timeoutMs: number): Promise<boolean> {
  try {
    const { body } = await probe<{ version?: unknown }>({
      url: `${settings.gatewayUrl}/llm/api/version`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      timeoutMs,
    });
    return typeof body.version === 'string';
  } catch (error) {
    if (error instanceof ProbeFailure) return false;
    throw error;
  }
}

/** The largest derived model of `model` Ollama has, up to the window the gateway asks for. */
async function ollamaWindow(
  settings: DoctorSettings,
  timeoutMs: number,
): Promise<{ name: string; tokens: number } | null> {
  const { body } = await probe<{ models?: Array<{ name?: string }> }>({
    url: `${settings.gatewayUrl}/llm/api/tags`,
    who: 'the model gateway',
    key: settings.gatewayKey,
    timeoutMs,
  });
  const prefix = derivedModelName(settings.chatModel, 0).replace(/0$/, '');
  const wanted = settings.promptBudgetTokens + settings.maxOutputTokens;
  const found = (body.models ?? [])
    .map((m) => ({ name: m.name ?? '', tokens: Number((m.name ?? '').slice(prefix.length)) }))
    .filter((m) => m.name.startsWith(prefix) && Number.isSafeInteger(m.tokens) && m.tokens <= wanted)
    .sort((a, b) => b.tokens - a.tokens);
  return found[0] ?? null;
}

async function openAiWindow(settings: DoctorSettings, timeoutMs: number) {
  let live: number | null = null;
  try {
    const { body } = await probe<{ data?: Array<Record<string, unknown>> }>({
      url: `${settings.gatewayUrl}/llm/v1/models`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      timeoutMs,
    });
    const entry = (body.data ?? []).find((m) => m.id === settings.chatModel);
    live = entry ? liveWindowOf(entry) : null;
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
  }
  const overrides = parseWindowOverrides(settings.windowOverrides);
  return chooseWindow(settings.chatModel, live, overrides);
}

const SOURCES = {
  live: 'as the provider reports it',
  override: 'ASSISTANT_MODEL_WINDOWS',
  table: "the gateway's table",
};

export async function checkWindow(settings: DoctorSettings, timeoutMs: number): Promise<WindowCheck> {
  const agent = agentPromptTokens();
  const ollama = await isOllama(settings, timeoutMs);
  let window: number | null = null;
  let source = 'unknown (the provider reports none and the gateway does not know the model)';
  let servedModel = settings.chatModel;
  if (ollama) {
    const derived = await ollamaWindow(settings, timeoutMs).catch(() => null);
    if (derived)
      [window, source, servedModel] = [derived.tokens, "the gateway's Ollama model " + derived.name, derived.name];
  } else {
    const chosen = await openAiWindow(settings, timeoutMs);
    if (chosen) [window, source] = [chosen.tokens, SOURCES[chosen.source]];
  }
  return { window, source, agentPromptTokens: agent, ollama, servedModel, ...fit(settings, agent, window, ollama) };
}

function fit(settings: DoctorSettings, agent: number, window: number | null, ollama: boolean) {
  if (window === null)
    return { fits: null, advice: 'Set ASSISTANT_MODEL_WINDOWS=<model>=<tokens> so prompts are checked.' };
  const needed = agent + settings.maxOutputTokens;
  if (needed > window)
    return {
      fits: false,
      advice:
        `The agent's prompt (${agent} tokens) and ${settings.maxOutputTokens} for the answer need ${needed} tokens; ` +
        (ollama
          ? 'raise ASSISTANT_OLLAMA_MAX_CONTEXT and ASSISTANT_PROMPT_BUDGET_TOKENS, or use a model with a larger window.'
          : 'use a model with a larger window.'),
    };
  const room = window - needed;
  return {
    fits: true,
    advice:
      room < 2000
        ? `Only ${room} tokens are left for the conversation and memories; long turns will be refused.`
        : null,
  };
}
