// Turns a reply into Telegram messages: split under the 4,096-character limit (at paragraph, line or word
// boundaries, never inside a surrogate pair) and formatted as Telegram HTML with everything escaped, so no reply
// can break Telegram's entity parser. **bold**, `code` and ``` blocks become <b>, <code> and <pre>.

export const TELEGRAM_LIMIT = 4096;
/** Room left for a code fence re-opened in the next chunk. */
const CHUNK_BUDGET = TELEGRAM_LIMIT - 16;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cutPoint(text: string, budget: number): number {
  if (text.length <= budget) return text.length;
  const window = text.slice(0, budget);
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(separator);
    if (at >= budget / 2) return at + separator.length;
  }
  // No boundary: cut hard, but never between the two halves of a surrogate pair.
  const code = text.charCodeAt(budget - 1);
  return code >= 0xd800 && code <= 0xdbff ? budget - 1 : budget;
}

/** Splits plain text into chunks of at most `budget` UTF-16 units, keeping ``` blocks balanced per chunk. */
export function splitText(text: string, budget = CHUNK_BUDGET): string[] {
  const chunks: string[] = [];
  let rest = text;
  let reopenFence = false;
  while (rest.length > 0) {
    const prefix: string = reopenFence ? '```\n' : '';
    const at = cutPoint(rest, budget - prefix.length - 4);
    let chunk: string = prefix + rest.slice(0, at);
    rest = rest.slice(at);
    const fences: number = (chunk.match(/```/g) ?? []).length;
    reopenFence = fences % 2 === 1 && rest.length > 0;
    if (reopenFence) chunk += '\n```';
    if (chunk.trim() !== '') chunks.push(chunk);
  }
  return chunks;
}

/** Formats one chunk as Telegram HTML. Unmatched markers stay literal text. */
export function toTelegramHtml(text: string): string {
  const parts = text.split(/(```[\s\S]*?```)/g);
  return parts
    .map((part) => {
      if (/^```[\s\S]*```$/.test(part) && part.length >= 6) {
        const body = part.slice(3, -3).replace(/^[A-Za-z0-9_+-]*\n/, '');
        return `<pre>${escapeHtml(body)}</pre>`;
      }
      return escapeHtml(part)
        .replace(/`([^`\n]+)`/g, '<code>$1</code>')
        .replace(/\*\*([^*\n]+)\*\*/g, '<b>$1</b>');
    })
    .join('');
}

export interface TelegramMessagePart {
  text: string;
  parseMode: 'HTML';
}

export function telegramMessages(reply: string): TelegramMessagePart[] {
  return splitText(reply).map((chunk) => ({ text: toTelegramHtml(chunk), parseMode: 'HTML' as const }));
}
