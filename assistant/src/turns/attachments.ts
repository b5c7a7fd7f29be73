// Files a run made for its turn (a browser screenshot): kept with the turn, returned with the webhook's reply. On
// Telegram the workflow sends them as photos itself; they are kept here too, so both channels read one record.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { requirePositiveInt, requireText, requireUserId } from '../validate';

export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** At most this many attachments are returned with one reply (the newest). */
export const MAX_ATTACHMENTS_PER_REPLY = 5;

export interface TurnAttachment {
  id: number;
  fileName: string;
  mimeType: string;
  /** The file, base64. */
  data: string;
}

export interface AttachmentInput {
  fileName?: unknown;
  mimeType?: unknown;
  /** The file, base64. */
  data?: unknown;
}

const FILE_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const MIME_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Keeps a file with the user's turn. */
export async function attachToTurn(
  db: Queryable,
  userIdInput: unknown,
  turnIdInput: unknown,
  input: AttachmentInput,
): Promise<{ id: number; bytes: number }> {
  const userId = requireUserId(userIdInput);
  const turnId = requirePositiveInt(turnIdInput, 'turnId');
  const fileName = requireText(input.fileName, 'fileName', 100).trim();
  if (!FILE_NAME.test(fileName)) throw new AssistantInputError('fileName', 'letters, digits, ".", "_" and "-" only');
  const mimeType = requireText(input.mimeType, 'mimeType', 100).trim().toLowerCase();
  if (!MIME_TYPE.test(mimeType)) throw new AssistantInputError('mimeType', 'must be a media type such as image/png');
  const text = typeof input.data === 'string' ? input.data.replace(/\s+/g, '') : '';
  if (!text || !BASE64.test(text)) throw new AssistantInputError('data', 'must be the file as base64');
  const data = Buffer.from(text, 'base64');
  if (data.length > MAX_ATTACHMENT_BYTES) {
    throw new AssistantInputError('data', `is ${data.length} bytes; the limit is ${MAX_ATTACHMENT_BYTES}`);
  }
  const inserted = await db.query<{ id: string }>(
    `INSERT INTO assistant.turn_attachments (user_id, turn_id, file_name, mime_type, data)
     SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM assistant.turns WHERE id = $2 AND user_id = $1)
     RETURNING id`,
    [userId, turnId, fileName, mimeType, data],
  );
  if (!inserted.rows[0]) throw new AssistantInputError('turnId', 'no such turn for this user');
  return { id: Number(inserted.rows[0].id), bytes: data.length };
}

/** The turn's files, oldest first (at most MAX_ATTACHMENTS_PER_REPLY, the newest). */
export async function turnAttachments(db: Queryable, userId: string, turnId: number): Promise<TurnAttachment[]> {
  const rows = await db.query<{ id: string; file_name: string; mime_type: string; data: Buffer }>(
    `SELECT * FROM (SELECT id, file_name, mime_type, data FROM assistant.turn_attachments
                     WHERE user_id = $1 AND turn_id = $2 ORDER BY id DESC LIMIT $3) newest ORDER BY id`,
    [userId, turnId, MAX_ATTACHMENTS_PER_REPLY],
  );
  return rows.rows.map((row) => ({
    id: Number(row.id),
    fileName: row.file_name,
    mimeType: row.mime_type,
    data: row.data.toString('base64'),
  }));
}
