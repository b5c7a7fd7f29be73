// Conversation turns, stored verbatim, and the recent ones loaded back as chat messages within a token budget.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { optionalInt, optionalText, requireText, requireUserId } from '../validate';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface StoredTurn {
  sessionId: string;
  userMessageId: number;
  assistantMessageId: number | null;
  createdAt: string;
}

export const MAX_MESSAGE_CHARS = 1_000_000;
export const MAX_METADATA_BYTES = 100_000;

/** The metadata as stored: a JSON object of at most 100 kB, or null. */
export function requireMetadata(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new AssistantInputError('metadata', 'must be a JSON object');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AssistantInputError('metadata', 'must be a JSON object');
  }
  const text = JSON.stringify(parsed);
  if (Buffer.byteLength(text, 'utf8') > MAX_METADATA_BYTES) {
    throw new AssistantInputError('metadata', `must be at most ${MAX_METADATA_BYTES / 1000} kB of JSON`);
  }
  return text;
}

/** A rough token count (about 4 characters per token, plus a few per message), good enough for budgeting. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4) + 4;
}

export function requireSessionId(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'default';
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new AssistantInputError('sessionId', 'must be a string');
  const id = String(value).trim();
  if (id === '' || id.length > 200 || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new AssistantInputError('sessionId', 'must be 1 to 200 printable characters');
  }
  return id;
}

export interface TurnInput {
  sessionId?: unknown;
  userMessage?: unknown;
  assistantReply?: unknown;
  channel?: unknown;
  metadata?: unknown;
}

/** Stores the user's message and (when given) the reply, atomically, exactly as they were written. */
export async function storeTurn(db: Queryable, userIdInput: unknown, input: TurnInput): Promise<StoredTurn> {
  const userId = requireUserId(userIdInput);
  const sessionId = requireSessionId(input.sessionId);
  const userMessage = requireText(input.userMessage, 'userMessage', MAX_MESSAGE_CHARS);
  const reply =
    input.assistantReply === undefined || input.assistantReply === null || input.assistantReply === ''
      ? null
      : requireText(input.assistantReply, 'assistantReply', MAX_MESSAGE_CHARS);
  const channel = optionalText(input.channel, 'channel', 40)?.trim() || 'api';
  const metadata = requireMetadata(input.metadata);
  const result = await db.query<{ id: string; role: string; created_at: Date }>(
    `INSERT INTO assistant.turns (user_id, session_id, role, content, channel, metadata)
     SELECT $1, $2, v.role, v.content, $5, $6::jsonb
       FROM (VALUES (1, 'user', $3::text), (2, 'assistant', $4::text)) AS v(ord, role, content)
      WHERE v.content IS NOT NULL AND EXISTS (SELECT 1 FROM assistant.users WHERE id = $1)
      ORDER BY v.ord
     RETURNING id, role, created_at`,
    [userId, sessionId, userMessage, reply, channel, metadata],
  );
  if (result.rows.length === 0) throw new AssistantInputError('userId', 'no such user');
  const userRow = result.rows.find((row) => row.role === 'user')!;
  const replyRow = result.rows.find((row) => row.role === 'assistant');
  return {
    sessionId,
    userMessageId: Number(userRow.id),
    assistantMessageId: replyRow ? Number(replyRow.id) : null,
    createdAt: userRow.created_at.toISOString(),
  };
}

/** The most messages of history a turn gets; the window moves on in blocks of HISTORY_BLOCK_MESSAGES. */
export const HISTORY_MAX_MESSAGES = 20;
export const HISTORY_BLOCK_MESSAGES = 10;

export interface HistoryRow {
  role: 'user' | 'assistant';
  content: string;
  /** Where the message is in its session (0: the first). */
  position: number;
  /** Whether the session's history tokens before it just passed a multiple of half the budget. */
  starts_block: boolean;
}

/**
 * The newest messages of a session that fit the budget (and HISTORY_MAX_MESSAGES), oldest first. The window starts
 * only at a block boundary (every HISTORY_BLOCK_MESSAGES messages, or where the session's tokens pass a multiple of
 * half the budget), so it is dropped in whole blocks: between two drops each turn's history is the last one's plus
 * what was said since, and the prompt's prefix stays byte-identical for the model server's cache.
 */
export async function recentMessages(
  db: Queryable,
  userIdInput: unknown,
  sessionIdInput: unknown,
  tokenBudgetInput?: unknown,
  beforeTurnIdInput?: unknown,
): Promise<ChatMessage[]> {
  const userId = requireUserId(userIdInput);
  const sessionId = requireSessionId(sessionIdInput);
  const budget = optionalInt(tokenBudgetInput, 'tokenBudget', 0, 1_000_000) ?? 2000;
  // The turn being answered is the prompt itself: only what came before it is history. Failed and pending messages
  // are history too ("what did I just ask?" finds them).
  const before = optionalInt(beforeTurnIdInput, 'turnId', 1, Number.MAX_SAFE_INTEGER) ?? Number.MAX_SAFE_INTEGER;
  const rows = await db.query<HistoryRow>(
    `WITH history AS (
       SELECT id, role, content, (row_number() OVER w - 1)::int AS position,
              coalesce(sum(ceil(char_length(content) / 4.0) + 4)
                         OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS tokens_before
         FROM assistant.turns WHERE user_id = $1 AND session_id = $2 AND id < $3
       WINDOW w AS (ORDER BY id)),
     blocks AS (
       SELECT *, floor(tokens_before / $4) AS block, lag(floor(tokens_before / $4)) OVER (ORDER BY id) AS previous
         FROM history)
     SELECT role, content, position, (previous IS NULL OR block > previous) AS starts_block
       FROM blocks ORDER BY id DESC LIMIT $5`,
    [userId, sessionId, before, Math.max(1, Math.floor(budget / 2)), HISTORY_MAX_MESSAGES],
  );
  return historyWindow(rows.rows, budget).map(({ role, content }) => ({ role, content }));
}

/** Of the newest rows (newest first), the oldest block start whose suffix fits; none fits: what fits, oldest first. */
export function historyWindow(newestFirst: HistoryRow[], budget: number): HistoryRow[] {
  let used = 0;
  let fits = 0;
  let start = -1;
  for (const row of newestFirst) {
    used += estimateTokens(row.content);
    if (used > budget) break;
    fits++;
    if (row.starts_block || row.position % HISTORY_BLOCK_MESSAGES === 0) start = fits;
  }
  return newestFirst.slice(0, start > 0 ? start : fits).reverse();
}
