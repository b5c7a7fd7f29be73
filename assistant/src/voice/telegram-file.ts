// A file a Telegram user sent (a voice note), downloaded through the Bot API: getFile, then the file itself, within a
// size limit. The bot token is in the URL Telegram asks for: it never goes into an error message.

export class TelegramFileError extends Error {
  constructor(
    readonly reason: 'too_large' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'TelegramFileError';
  }
}

export interface TelegramApi {
  /** https://api.telegram.org, or the base URL of the bot's credential. */
  baseUrl: string;
  token: string;
}

export async function downloadTelegramFile(
  api: TelegramApi,
  fileId: string,
  maxBytes: number,
  options: { timeoutMs?: number } = {},
): Promise<{ bytes: Buffer; filePath: string }> {
  const base = api.baseUrl.replace(/\/+$/, '');
  const signal = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  let info: { ok?: boolean; result?: { file_path?: unknown; file_size?: unknown }; description?: unknown };
  try {
    const response = await fetch(`${base}/bot${api.token}/getFile?file_id=${encodeURIComponent(fileId)}`, { signal });
    info = (await response.json()) as typeof info;
  } catch {
    throw new TelegramFileError('failed', 'Telegram did not answer when asked for the voice note');
  }
  const filePath = info.result?.file_path;
  if (!info.ok || typeof filePath !== 'string') {
    const why = typeof info.description === 'string' ? ` (${info.description})` : '';
    throw new TelegramFileError('failed', `Telegram could not give the voice note${why}`);
  }
  if (typeof info.result?.file_size === 'number' && info.result.file_size > maxBytes) {
    throw new TelegramFileError('too_large', `the voice note is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
  }
  let response: Response;
  try {
    response = await fetch(`${base}/file/bot${api.token}/${filePath}`, { signal });
  } catch {
    throw new TelegramFileError('failed', 'Telegram did not send the voice note');
  }
  if (!response.ok || !response.body)
    throw new TelegramFileError('failed', `Telegram answered HTTP ${response.status}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new TelegramFileError(
        'too_large',
        `the voice note is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`,
      );
    }
    chunks.push(Buffer.from(chunk));
  }
  return { bytes: Buffer.concat(chunks), filePath };
}
