// Telegram replies: splitting and formatting, checked against the fake Telegram's parser.
import { describe, expect, it } from 'vitest';
import { splitText, telegramMessages, toTelegramHtml, TELEGRAM_LIMIT } from '../../src/channel';
import { visibleTextOfHtml } from '../../../test/fakes/telegram-bot-api';

describe('Telegram replies', () => {
  it('escapes HTML and formats bold, code and blocks so Telegram can parse it', () => {
    const html = toTelegramHtml('a < b & **c** `x<y` ```js\nif (a < b) {}\n```');
    expect(html).toBe('a &lt; b &amp; <b>c</b> <code>x&lt;y</code> <pre>if (a &lt; b) {}\n</pre>');
    expect(visibleTextOfHtml(html)).toBe('a < b & c x<y if (a < b) {}\n');
    expect(visibleTextOfHtml(toTelegramHtml('**unclosed `tick <b>'))).toBe('**unclosed `tick <b>');
  });

  it('splits long replies under the limit at boundaries, losing no text', () => {
    const paragraph = 'word '.repeat(300).trim();
    const reply = Array.from({ length: 12 }, () => paragraph).join('\n\n');
    const parts = splitText(reply);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(TELEGRAM_LIMIT);
    expect(parts.join('')).toBe(reply);
  });

  it('never splits an emoji and keeps code fences balanced per message', () => {
    const emoji = '😀'.repeat(5000);
    const parts = splitText(emoji);
    expect(parts.join('')).toBe(emoji);
    for (const part of parts) expect(part.startsWith('\uDE00')).toBe(false);
    const code = '```\n' + 'line of code\n'.repeat(800) + '```';
    for (const message of telegramMessages(code)) {
      expect(visibleTextOfHtml(message.text).length).toBeLessThanOrEqual(TELEGRAM_LIMIT);
      expect(message.text.startsWith('<pre>')).toBe(true);
    }
  });
});
