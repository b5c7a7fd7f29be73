// A model's chat template (tokenizer_config.json `chat_template`, or chat_template.jinja), rendered with
// @huggingface/jinja as transformers.js does, into a frame around the one user message: `before` + content + `after`.
// The frame is rendered once per model, with a placeholder for the content, so the text before the state is the
// same bytes for every request and question (prefix caching), and the caller's text is never parsed as Jinja.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { ANSWER_CUE } from '../../engine/render';

/** The rendered template around the user message: a prompt is `before + content + after`. */
export interface ChatFrame {
  /** From the start of the prompt up to the user message (system turn, BOS, the user header). */
  before: string;
  /** From the end of the user message through the generation prompt (the assistant header). */
  after: string;
}

export type JsonObject = Record<string, unknown>;

/** Marks where the user message goes; private-use characters and a fixed word, checked to occur exactly once. */
const CONTENT_PLACEHOLDER = '\uE000judge-user-message\uE001';

/**
 * Text shaped like the content the judge sends (it starts and ends with non-space text, holds newlines, JSON and
 * special-token text), used to check that the template puts the content into the prompt unchanged.
 */
const PROBE_CONTENT =
  'You are a careful judge.\n\n<state>\n{"a": "<|im_end|> {{ x }} {% if %}"}\n</state>\n\nReply with the label only.';

/** The template source of a model directory: tokenizer_config.json `chat_template` or chat_template.jinja. */
export function readChatTemplate(dir: string, tokenizerConfig: JsonObject): string | undefined {
  const configured = tokenizerConfig.chat_template;
  if (typeof configured === 'string') return configured;
  if (Array.isArray(configured)) {
    // Several named templates (e.g. "default", "tool_use"): the judge asks plain questions, so "default".
    const named = configured as { name?: unknown; template?: unknown }[];
    const chosen = named.find((t) => t?.name === 'default');
    if (!chosen || typeof chosen.template !== 'string') {
      const names = named.map((t) => JSON.stringify(t?.name)).join(', ');
      throw new Error(`tokenizer_config.json chat_template lists templates ${names} but none named "default"`);
    }
    return chosen.template;
  }
  if (configured !== undefined && configured !== null) {
    throw new Error('tokenizer_config.json chat_template must be a string or a list of {name, template}');
  }
  const file = join(dir, 'chat_template.jinja');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The text of a special token in tokenizer_config.json: a string, or an AddedToken object's `content`. */
export function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && typeof (value as JsonObject).content === 'string') {
    return (value as JsonObject).content as string;
  }
  return undefined;
}

/** `bos_token`, `eos_token`, … of tokenizer_config.json as strings: what transformers passes to the template. */
export function specialTokenVariables(tokenizerConfig: JsonObject): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(tokenizerConfig)) {
    const text = key.endsWith('_token') ? tokenText(value) : undefined;
    if (text !== undefined) variables[key] = text;
  }
  return variables;
}

function pythonRange(start: number, stop?: number, step = 1): number[] {
  if (stop === undefined) [start, stop] = [0, start];
  if (step === 0) throw new Error('range() step must not be zero');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

/**
 * Renders a template for one user message with the generation prompt. The globals are those of
 * @huggingface/jinja except `strftime_now`: a prompt that carried today's date would change every day (and differ
 * between servers), so date-stamping templates (Llama 3.x) take their own fixed fallback date instead.
 */
export function renderChatTemplate(source: string, content: string, variables: Record<string, string>): string {
  const template = new Template(source);
  const env = new Environment();
  for (const [name, value] of Object.entries({ true: true, false: false, none: null })) {
    env.set(name, value);
    env.set(name[0].toUpperCase() + name.slice(1), value);
  }
  env.set('raise_exception', (message: string) => {
    throw new Error(`the template raised: ${message}`);
  });
  env.set('range', pythonRange);
  for (const [name, value] of Object.entries(variables)) env.set(name, value);
  env.set('messages', [{ role: 'user', content }]);
  env.set('add_generation_prompt', true);
  return new Interpreter(env).run(template.parsed).value as string;
}

/**
 * The frame of a template: rendered once with a placeholder for the user message, then checked with a probe
 * message that it inserts the content unchanged (no trimming, escaping or branching on it).
 */
export function chatFrame(source: string, variables: Record<string, string>): ChatFrame {
  const render = (content: string): string => {
    try {
      return renderChatTemplate(source, content, variables);
    } catch (error) {
      throw new Error(`chat_template cannot be rendered: ${(error as Error).message}`);
    }
  };
  const framed = render(CONTENT_PLACEHOLDER);
  const parts = framed.split(CONTENT_PLACEHOLDER);
  if (parts.length !== 2) {
    throw new Error(
      `chat_template must put the user message into the prompt exactly once (it does ${parts.length - 1} times)`,
    );
  }
  const frame = { before: parts[0], after: parts[1] };
  if (render(PROBE_CONTENT) !== frame.before + PROBE_CONTENT + frame.after) {
    throw new Error('chat_template changes the user message (it must insert it unchanged)');
  }
  return frame;
}

/** A question's text without the answer cue: a chat prompt puts the cue after the generation prompt. */
export function questionBody(suffix: string): string {
  if (!suffix.endsWith(ANSWER_CUE)) throw new Error(`a rendered question must end with the answer cue ${ANSWER_CUE}`);
  return suffix.slice(0, -ANSWER_CUE.length).trimEnd();
}

/**
 * The text a chat model reads for one question: the template around one user message (the rendered state, then
 * the question), and the answer cue as the start of the assistant's reply. Everything up to and including the
 * state is `frame.before + prefix`, the same for every question.
 */
export function chatPrompt(frame: ChatFrame, prefix: string, suffix: string): string {
  return frame.before + prefix + questionBody(suffix) + frame.after + ANSWER_CUE;
}
