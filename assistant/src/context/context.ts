// The context step of the agent: personality, recent turns within a token budget, and relevant memories. The system
// prompt is static (name, style, language: the same for every turn, day and user of the same settings), so the
// prompt's prefix (system message, tools, history) stays byte-identical and prompt caches work; what changes per turn
// (the local time, the recalled memories, what the knowledge graph holds about the people and things the message names)
// is a context block put in front of the user's message.
import type { Queryable } from '../storage/db';
import { recall, type RecalledMemory } from '../memory/recall';
import type { Embedder } from '../memory/embeddings';
import { graphContext, GRAPH_CONTEXT_CHARS } from './graph-context';
import { getInstanceSettings, getUserSettings, type AssistantSettings } from '../settings/settings';
import { recentMessages, requireSessionId, type ChatMessage } from '../turns/turns';
import { optionalInt, optionalText, requireUserId } from '../validate';
import { withCaller } from '../gateway/caller';
import { UNTRUSTED_RULE } from '../safety/untrusted';

export interface AssistantContext {
  userId: string;
  sessionId: string;
  settings: AssistantSettings;
  /** The instance's chat model name, for the Chat Model node. */
  chatModel: string;
  /** How long one call of the Chat Model may take (the modelTimeoutSeconds setting), for its timeout option. */
  modelTimeoutSeconds: number;
  /** The current local time in the user's time zone, ISO-like, e.g. "2026-05-01 09:30 (Europe/Vienna)". */
  localTime: string;
  messages: ChatMessage[];
  memories: RecalledMemory[];
  /** What the knowledge graph holds about the people and things the message names (lines of the context block). */
  graph: string[];
  /** The static system prompt: name, style and language only. */
  systemPrompt: string;
  /** What changes per turn, for the front of the user's message: the local time and the relevant memories. */
  contextBlock: string;
  /** The message as the agent gets it: the context block, then the user's own words. */
  userPrompt: string;
  /** When this run must be done (ISO 8601): now plus the runLimitSeconds setting. The agent passes it to every tool. */
  deadline: string;
}

export interface ContextOptions {
  sessionId?: unknown;
  message?: unknown;
  tokenBudget?: unknown;
  memoryLimit?: unknown;
  /** The most characters the knowledge graph's part of the context block may take (default GRAPH_CONTEXT_CHARS). */
  graphChars?: unknown;
  /** The turn being answered (stored on arrival): history is what came before it. */
  turnId?: unknown;
  /** With embeddings on: memories are also recalled by meaning (a failing endpoint falls back to words). */
  embedder?: Embedder;
  now?: Date;
}

export function localTime(timeZone: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'long',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} (${timeZone})`;
}

export function systemPrompt(settings: AssistantSettings): string {
  return [
    `You are ${settings.assistantName}, a personal assistant.`,
    `Style: ${settings.style}`,
    `The user's preferred language is ${settings.language}; answer in the language the user writes in.`,
    'Each user message starts with a context block from the assistant (the local time, what you remember); the ' +
      "user's own words follow it.",
    UNTRUSTED_RULE,
  ].join('\n');
}

export const CONTEXT_START = '[Context from the assistant, not written by the user]';
export const CONTEXT_END = '[End of context]';

/**
 * The per-turn context: the user's local time, the memories recalled for this message (a memory that disagrees with
 * another says so), and what the knowledge graph holds about the people and things it names.
 */
export function contextBlock(
  time: string,
  memories: Array<Pick<RecalledMemory, 'id' | 'content'> & { contradicts?: number | null }>,
  graph: string[] = [],
): string {
  const lines = [CONTEXT_START, `The user's local time is ${time}.`];
  if (memories.length > 0) {
    lines.push('What you remember that may be relevant (memory id, then content):');
    for (const memory of memories) {
      const disagrees = memory.contradicts ? ` (disagrees with memory ${memory.contradicts})` : '';
      lines.push(`- [${memory.id}] ${memory.content.replace(/\s+/g, ' ').slice(0, 1000)}${disagrees}`);
    }
  }
  if (graph.length > 0) {
    lines.push('What your knowledge graph holds about the people and things named (current relations):');
    lines.push(...graph);
  }
  lines.push(CONTEXT_END);
  return lines.join('\n');
}

/** A recurring action's run (its session is "action:<id>") is the action job; anything else the agent's turn. */
const jobOf = (sessionId: string): string => (sessionId.startsWith('action:') ? 'action' : 'agent');

const turnRef = (turnId: unknown): string | undefined =>
  typeof turnId === 'string' || typeof turnId === 'number' ? String(turnId) : undefined;

export async function loadContext(
  db: Queryable,
  userIdInput: unknown,
  options: ContextOptions = {},
): Promise<AssistantContext> {
  const userId = requireUserId(userIdInput);
  const sessionId = requireSessionId(options.sessionId);
  const message = optionalText(options.message, 'message', 1_000_000);
  const memoryLimit = optionalInt(options.memoryLimit, 'memoryLimit', 0, 50) ?? 8;
  const graphChars = optionalInt(options.graphChars, 'graphChars', 0, 20_000) ?? GRAPH_CONTEXT_CHARS;
  const now = options.now ?? new Date();
  const settings = await getUserSettings(db, userId);
  const { chatModel, modelTimeoutSeconds, runLimitSeconds } = await getInstanceSettings(db);
  const messages = await recentMessages(db, userId, sessionId, options.tokenBudget, options.turnId);
  const memories =
    message?.trim() && memoryLimit > 0
      ? await recall(db, userId, message.slice(0, 10_000), { limit: memoryLimit, embedder: options.embedder })
      : [];
  const graph = message?.trim() && graphChars > 0 ? await graphContext(db, userId, message, now, graphChars) : [];
  const time = localTime(settings.timeZone, now);
  const block = contextBlock(time, memories, graph);
  return {
    userId,
    sessionId,
    settings,
    // The gateway records who calls (docs/MODELS.md): this user's turn of the main agent.
    chatModel: withCaller(chatModel, { job: jobOf(sessionId), user: userId, ref: turnRef(options.turnId) }),
    modelTimeoutSeconds,
    localTime: time,
    messages,
    memories,
    graph,
    systemPrompt: systemPrompt(settings),
    contextBlock: block,
    userPrompt: `${block}\n\n${message ?? ''}`,
    deadline: new Date(now.getTime() + runLimitSeconds * 1000).toISOString(),
  };
}
