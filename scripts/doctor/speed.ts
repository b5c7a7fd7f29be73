// A bounded speed probe: a prompt of about 512 tokens, 32 tokens of answer. On Ollama (through the gateway's
// pass-through to /api/chat, the derived model so that nothing reloads) the speeds come from Ollama's own
// prompt_eval_duration and eval_duration; elsewhere from the wall clock (prefill and output together, so the output
// speed is a lower bound). A random opening defeats the prompt cache, which would make prefill look free.
import { randomBytes } from 'node:crypto';
import { withCaller } from '../../assistant/src/gateway/caller';
import { DOCTOR_CALLER } from './chat';
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

export const SPEED_PROMPT_TOKENS = 512;
export const SPEED_OUTPUT_TOKENS = 32;

export interface SpeedCheck {
  measured: boolean;
  /** Tokens per second, or null when not measured separately. */
  prefillTokensPerSecond: number | null;
  outputTokensPerSecond: number | null;
  promptTokens: number | null;
  outputTokens: number | null;
  by: 'ollama' | 'wall clock' | null;
  problem: string | null;
}

/** About 512 tokens of plain English (about 4 characters a token), opened by a random word. */
function speedPrompt(): string {
  const sentence = 'The quiet garden behind the old house grows tomatoes, beans and sunflowers every summer. ';
  return `${randomBytes(6).toString('hex')}. ${sentence.repeat(Math.ceil((SPEED_PROMPT_TOKENS * 4) / sentence.length))}`;
}

const perSecond = (tokens: number, nanos: number): number | null =>
  nanos > 0 ? Math.round((tokens / (nanos / 1e9)) * 10) / 10 : null;

interface OllamaChatAnswer {
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
}
interface OpenAiAnswer {
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

export async function checkSpeed(
  settings: DoctorSettings,
  served: { ollama: boolean; model: string },
  timeoutMs: number,
): Promise<SpeedCheck> {
  const messages = [{ role: 'user', content: `${speedPrompt()}\nSummarise this in one sentence.` }];
  try {
    if (served.ollama) {
      const { body } = await probe<OllamaChatAnswer>({
        url: `${settings.gatewayUrl}/llm/api/chat`,
        who: 'the model gateway',
        key: settings.gatewayKey,
        json: {
          model: withCaller(served.model, DOCTOR_CALLER),
          messages,
          stream: false,
          keep_alive: settings.ollamaKeepAlive,
          options: { num_predict: SPEED_OUTPUT_TOKENS },
        },
        timeoutMs,
      });
      const prompt = body.prompt_eval_count ?? 0;
      const output = body.eval_count ?? 0;
      return {
        measured: true,
        prefillTokensPerSecond: perSecond(prompt, body.prompt_eval_duration ?? 0),
        outputTokensPerSecond: perSecond(output, body.eval_duration ?? 0),
        promptTokens: prompt,
        outputTokens: output,
        by: 'ollama',
        problem: null,
      };
    }
    const { body, elapsedMs } = await probe<OpenAiAnswer>({
      url: `${settings.gatewayUrl}/llm/v1/chat/completions`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      json: { model: withCaller(settings.chatModel, DOCTOR_CALLER), messages, max_tokens: SPEED_OUTPUT_TOKENS },
      timeoutMs,
    });
    const prompt = body.usage?.prompt_tokens ?? 0;
    const output = body.usage?.completion_tokens ?? 0;
    return {
      measured: true,
      prefillTokensPerSecond: null,
      outputTokensPerSecond: perSecond(output, elapsedMs * 1e6),
      promptTokens: prompt,
      outputTokens: output,
      by: 'wall clock',
      problem: null,
    };
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    return { ...notMeasured(), problem: error.message };
  }
}

export const notMeasured = (): SpeedCheck => ({
  measured: false,
  prefillTokensPerSecond: null,
  outputTokensPerSecond: null,
  promptTokens: null,
  outputTokens: null,
  by: null,
  problem: null,
});
