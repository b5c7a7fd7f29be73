// The chat model through the gateway: one real tool-call round trip with a tiny tool. The model is asked to call
// it; its call is answered with the tool's result and the model's final reply is read. A model that answers in
// plain text instead of calling the tool is named; any failure (unreachable, a refused key, an unknown model, a
// timeout) is the chat model's verdict.
import { withCaller } from '../../assistant/src/gateway/caller';
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

export const DOCTOR_CALLER = { job: 'doctor' } as const;
const TOOL_NAME = 'doctor_lucky_number';
/** The user message doctor sends: a test fake can match it. */
export const TOOL_PROBE_MESSAGE = `Doctor check: call the tool ${TOOL_NAME} with word "ping", then say its number.`;

const TOOL = {
  type: 'function',
  function: {
    name: TOOL_NAME,
    description: 'Returns the lucky number of a word.',
    parameters: {
      type: 'object',
      properties: { word: { type: 'string', description: 'Any word' } },
      required: ['word'],
    },
  },
};

interface ChatAnswer {
  choices?: Array<{
    message?: {
      content?: string | null;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    };
  }>;
}

export interface ChatCheck {
  reachable: boolean;
  /** Set when the model could not be reached or refused: what went wrong, in plain words. */
  problem: string | null;
  problemKind: ProbeFailure['kind'] | null;
  toolCalling: 'works' | 'plain_text' | 'untested';
  /** What the model said instead of calling the tool (cut short), when it did not call it. */
  plainTextReply: string | null;
}

export async function checkChat(settings: DoctorSettings, timeoutMs: number): Promise<ChatCheck> {
  const ask = (messages: unknown[]) =>
    probe<ChatAnswer>({
      url: `${settings.gatewayUrl}/llm/v1/chat/completions`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      json: { model: withCaller(settings.chatModel, DOCTOR_CALLER), messages, tools: [TOOL], max_tokens: 64 },
      timeoutMs,
    });
  const messages: unknown[] = [
    { role: 'system', content: 'You are a test. Use the tool you are given.' },
    { role: 'user', content: TOOL_PROBE_MESSAGE },
  ];
  try {
    const first = (await ask(messages)).body.choices?.[0]?.message;
    const call = first?.tool_calls?.find((c) => c.function?.name === TOOL_NAME);
    if (!call) return { ...reached(), toolCalling: 'plain_text', plainTextReply: (first?.content ?? '').slice(0, 120) };
    messages.push({ role: 'assistant', content: '', tool_calls: [{ ...call, type: 'function' }] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: '42' });
    await ask(messages);
    return { ...reached(), toolCalling: 'works', plainTextReply: null };
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    return {
      reachable: false,
      problem: error.message,
      problemKind: error.kind,
      toolCalling: 'untested',
      plainTextReply: null,
    };
  }
}

const reached = () => ({ reachable: true, problem: null, problemKind: null });
