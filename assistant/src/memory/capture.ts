// Memory capture, off the reply path: the next batch of a session gone idle (its user's words and the assistant's
// replies without the outside text they quoted), the chat request that asks for its extraction through a forced
// tool call, reading the answer, and moving the session's cursor on once the batch was applied or dropped. The model
// call and applyExtraction are the caller's (the Assistant Memory node's captureMemories).
import { AssistantInputError } from '../errors';
import { recordFailure } from '../failures/failures';
import { EXTRACTION_SCHEMA } from '../graph/extraction';
import { getInstanceSettings, MAX_RUN_LIMIT_SECONDS } from '../settings/settings';
import type { Queryable } from '../storage/db';

/** The most characters of conversation one batch gives the model (cut at whole turns). */
export const CAPTURE_SOURCE_CHARS = 12_000;
/** The turns read per batch at most, before the character budget cuts. */
const CAPTURE_TURN_ROWS = 200;
export const EXTRACTION_TOOL = 'record_extraction';

export interface CaptureBatch {
  userId: string;
  sessionId: string;
  /** The turn ids read, first and last (inclusive). */
  fromTurnId: number;
  toTurnId: number;
  /** What the model reads: "User: …" and "Assistant: …" paragraphs, outside text left out. */
  sourceText: string;
  /** false when a turn of the batch carried outside content: its facts are stored unconfirmed. */
  confirmed: boolean;
}

interface TurnRow {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  /** A placeholder stands where the message was (a one-time code): not read. */
  redacted: boolean;
  outside: boolean;
}

/** A marked block of outside text (safety/untrusted.ts), or an opened one never closed, to the end. */
const UNTRUSTED_BLOCK = /«untrusted (\S+) from [^»\n]*»[\s\S]*?(?:«end \1»|$)/g;

/** The text without its «untrusted …» … «end …» blocks. */
export function withoutUntrusted(text: string): string {
  return text
    .replace(UNTRUSTED_BLOCK, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The oldest session with turns after its cursor whose last turn is at least `captureIdleMinutes` old and whose user
 * has no turn running; null when there is none or capture is off (0).
 */
export async function nextCaptureBatch(
  db: Queryable,
  options: { now: Date; maxChars?: number },
): Promise<CaptureBatch | null> {
  const { captureIdleMinutes } = await getInstanceSettings(db);
  if (captureIdleMinutes === 0) return null;
  const idleSince = new Date(options.now.getTime() - captureIdleMinutes * 60_000);
  // A pending turn younger than the longest run is still being answered; an older one was cut off.
  const runningSince = new Date(options.now.getTime() - MAX_RUN_LIMIT_SECONDS * 1000);
  const found = await db.query(
    `SELECT t.user_id, t.session_id, min(t.id) AS first_id
       FROM assistant.turns t
       LEFT JOIN assistant.capture_cursors c ON c.user_id = t.user_id AND c.session_id = t.session_id
      WHERE t.id > coalesce(c.last_turn_id, 0)
      GROUP BY t.user_id, t.session_id
     HAVING max(t.created_at) <= $1
        AND NOT EXISTS (SELECT 1 FROM assistant.turns p
                         WHERE p.user_id = t.user_id AND p.status = 'pending' AND p.created_at > $2)
      ORDER BY min(t.id) LIMIT 1`,
    [idleSince, runningSince],
  );
  if (found.rowCount === 0) return null;
  const { user_id: userId, session_id: sessionId, first_id: firstId } = found.rows[0];
  const rows = await db.query(
    `SELECT id, role, content, redacted, outside_content_at IS NOT NULL AS outside FROM assistant.turns
      WHERE user_id = $1 AND session_id = $2 AND id >= $3
      ORDER BY id LIMIT $4`,
    [userId, sessionId, firstId, CAPTURE_TURN_ROWS],
  );
  const turns = rows.rows.map((row) => ({ ...row, id: Number(row.id) }) as TurnRow);
  const chosen = wholeTurnsWithin(turns, options.maxChars ?? CAPTURE_SOURCE_CHARS);
  return {
    userId,
    sessionId,
    fromTurnId: Number(firstId),
    toTurnId: chosen.at(-1)!.row.id,
    // Empty when every turn was redacted (a one-time code): nothing to ask the model.
    sourceText: chosen
      .map((turn) => turn.text)
      .filter(Boolean)
      .join('\n\n'),
    confirmed: !chosen.some((turn) => turn.row.outside),
  };
}

function paragraph(row: TurnRow): string {
  if (row.redacted) return '';
  if (row.role === 'user') return `User: ${row.content.trim()}`;
  const reply = withoutUntrusted(row.content);
  return reply ? `Assistant: ${reply}` : '';
}

/** The rows that fit in `maxChars`, cut before a user's message (a turn is a message and its replies). */
function wholeTurnsWithin(rows: TurnRow[], maxChars: number): Array<{ row: TurnRow; text: string }> {
  const texts = rows.map((row) => ({ row, text: paragraph(row) }));
  let used = 0;
  let end = 0; // rows [0, end) are whole turns within the budget
  for (let i = 0; i < texts.length; i++) {
    used += texts[i].text.length + 2;
    if (used > maxChars) break;
    if (i + 1 === texts.length || texts[i + 1].row.role === 'user') end = i + 1;
  }
  if (end > 0) return texts.slice(0, end);
  // One turn longer than the budget: its first row, cut, so that capture moves on.
  return texts.slice(0, 1).map(({ row, text }) => ({ row, text: text.slice(0, maxChars) }));
}

/** The static system message: the same for every batch, so a provider's prompt cache keeps it. */
export const CAPTURE_SYSTEM_PROMPT = [
  'You read a conversation between a user and their assistant and record what is worth remembering about the',
  "user's world, by calling record_extraction exactly once.",
  'entities: the people, companies, products, places and projects named, each with its full name as written and',
  'any shorter names used for it (aliases).',
  'relations: how they are linked, as snake_case types such as works_at, accountant_of, lives_in; "the user" stands',
  'for the user ("X is my accountant" is X accountant_of "the user").',
  'facts: durable facts about the user and the people and things they know, one sentence each, with the subject',
  'they are about (e.g. "my accountant"); leave out small talk, questions and what the assistant only suggested.',
  'Every relation and fact quotes its evidence: the exact words of the conversation it came from, copied verbatim.',
  'Record only what the conversation says; never guess. Empty lists when there is nothing to record.',
].join(' ');

export interface ExtractionRequestOptions {
  /** The model id as the gateway takes it (with the caller suffix). */
  model: string;
  /** The validation error of the previous answer, on the one retry. */
  retryError?: string;
}

/** The OpenAI-compatible chat completions body asking for the batch's extraction. */
export function extractionRequest(batch: Pick<CaptureBatch, 'sourceText'>, options: ExtractionRequestOptions) {
  const messages = [
    { role: 'system', content: CAPTURE_SYSTEM_PROMPT },
    { role: 'user', content: `The conversation:\n\n${batch.sourceText}` },
  ];
  if (options.retryError !== undefined) {
    messages.push({
      role: 'user',
      content:
        `Your previous answer was not a valid extraction: ${options.retryError}. ` +
        `Call ${EXTRACTION_TOOL} again with a corrected extraction.`,
    });
  }
  return {
    model: options.model,
    temperature: 0,
    messages,
    tools: [
      {
        type: 'function' as const,
        function: {
          name: EXTRACTION_TOOL,
          description: 'Records the entities, relations and facts of the conversation, each quoted from it.',
          parameters: EXTRACTION_SCHEMA,
        },
      },
    ],
    tool_choice: { type: 'function' as const, function: { name: EXTRACTION_TOOL } },
  };
}

const parseJson = (text: string, field: string): unknown => {
  // A plain-text answer may wrap its JSON in a Markdown fence.
  const bare = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(bare);
  } catch {
    throw new AssistantInputError(field, 'must be JSON');
  }
};

/** The extraction a chat completion carries: the record_extraction call's arguments, or its content as JSON. */
export function readExtraction(responseBody: unknown): unknown {
  const choices = (responseBody as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new AssistantInputError('choices', 'the answer has no choices');
  const message = (choices[0] as { message?: unknown } | null)?.message as
    { content?: unknown; tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }> } | undefined;
  if (typeof message !== 'object' || message === null)
    throw new AssistantInputError('choices[0].message', 'is missing');
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const at = calls.findIndex((call) => call?.function?.name === EXTRACTION_TOOL);
  if (at >= 0) {
    const args = calls[at].function!.arguments;
    const field = `choices[0].message.tool_calls[${at}].function.arguments`;
    return typeof args === 'string' ? parseJson(args, field) : args;
  }
  if (calls.length > 0) {
    const names = calls.map((call) => String(call?.function?.name)).join(', ');
    throw new AssistantInputError('choices[0].message.tool_calls', `call ${EXTRACTION_TOOL}, not ${names}`);
  }
  if (typeof message.content === 'string' && message.content.trim() !== '')
    return parseJson(message.content, 'choices[0].message.content');
  throw new AssistantInputError('choices[0].message', `neither calls ${EXTRACTION_TOOL} nor gives JSON content`);
}

export type CaptureOutcome = { status: 'applied' } | { status: 'dropped'; error: string };

/**
 * Moves the session's cursor past the batch: applied, or dropped after a second invalid answer (recorded as one
 * `capture` failure naming the error). A batch whose model call failed is not finished: it is read again next time.
 */
export async function finishCaptureBatch(
  db: Queryable,
  batch: CaptureBatch,
  outcome: CaptureOutcome,
  options: { now: Date },
): Promise<void> {
  if (outcome.status === 'dropped') {
    const message =
      `dropped turns ${batch.fromTurnId}-${batch.toTurnId} of session ${batch.sessionId}: the extraction was ` +
      `invalid twice (${outcome.error})`;
    await recordFailure(
      db,
      {
        source: 'capture',
        message,
        userId: batch.userId,
        data: { sessionId: batch.sessionId, fromTurnId: batch.fromTurnId, toTurnId: batch.toTurnId },
      },
      options.now,
    );
  }
  await db.query(
    `INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, session_id) DO UPDATE
       SET last_turn_id = greatest(capture_cursors.last_turn_id, EXCLUDED.last_turn_id), updated_at = EXCLUDED.updated_at`,
    [batch.userId, batch.sessionId, batch.toTurnId, options.now],
  );
}
