// The Assistant Channel's domain: API key check, webhook body validation, Telegram updates, reply splitting and
// formatting (checked against the fake Telegram's parser), and failure mapping.
import { describe, expect, it } from 'vitest';
import { checkApiKey, describeFailure, normaliseTelegramUpdate, parseAgentRequest, splitText, telegramMessages, toTelegramHtml, TELEGRAM_LIMIT } from '../../src/channel';
import { visibleTextOfHtml } from '../../../test/fakes/telegram-bot-api';

const credential = { name: 'X-API-Key', value: 'k3y-value' };

describe('API key check', () => {
  it('accepts the right key in the configured header, case-insensitively by header name', () => {
    expect(checkApiKey({ 'x-api-key': 'k3y-value' }, credential)).toBeNull();
  });
  it('answers 401 JSON for a missing key and 403 JSON for a wrong one', () => {
    expect(checkApiKey({}, credential)).toMatchObject({ statusCode: 401, body: { error: { code: 'unauthenticated' } } });
    expect(checkApiKey({ 'x-api-key': '' }, credential)?.statusCode).toBe(401);
    expect(checkApiKey({ 'x-api-key': 'k3y-valuE' }, credential)).toMatchObject({ statusCode: 403, body: { error: { code: 'forbidden' } } });
    expect(checkApiKey({ 'x-api-key': 'k3y-value-and-more' }, credential)?.statusCode).toBe(403);
  });
  it('never lets anyone in when the credential is empty', () => {
    expect(checkApiKey({ 'x-api-key': '' }, { name: 'X-API-Key', value: '' })).toMatchObject({ statusCode: 503, body: { error: { code: 'auth_not_configured' } } });
    expect(checkApiKey({ '': 'x' }, { name: '', value: 'x' })?.statusCode).toBe(503);
  });
});

describe('webhook body validation', () => {
  const fieldOf = (body: unknown): string | undefined => {
    const result = parseAgentRequest(body);
    return 'statusCode' in result ? (result.body as { error: { field: string } }).error.field : undefined;
  };

  it('accepts a valid body and keeps the message verbatim', () => {
    const message = '  "quoted" $1 \\n 🙂  ';
    expect(parseAgentRequest({ message, user_id: ' u1 ', session_id: 's', metadata: { a: 1 } })).toEqual({
      channel: 'api',
      externalId: 'u1',
      message,
      sessionId: 's',
      metadata: { a: 1 },
    });
    expect(parseAgentRequest({ message: 'hi', user_id: 'u1' })).toMatchObject({ sessionId: 'default', metadata: {} });
  });

  it('answers 400 naming the field', () => {
    expect(parseAgentRequest({ user_id: 'u' })).toMatchObject({ statusCode: 400, body: { error: { code: 'invalid_request', field: 'message' } } });
    expect(fieldOf(null)).toBe('body');
    expect(fieldOf('text')).toBe('body');
    expect(fieldOf([])).toBe('body');
    expect(fieldOf({ message: '   ', user_id: 'u' })).toBe('message');
    expect(fieldOf({ message: 5, user_id: 'u' })).toBe('message');
    expect(fieldOf({ message: 'hi' })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 7 })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'a\nb' })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'x'.repeat(201) })).toBe('user_id');
    expect(fieldOf({ message: 'hi', user_id: 'u', session_id: '' })).toBe('session_id');
    expect(fieldOf({ message: 'hi', user_id: 'u', metadata: [1] })).toBe('metadata');
    expect(fieldOf({ message: 'hi', user_id: 'u', userId: 'v' })).toBe('userId');
  });
});

describe('Telegram updates', () => {
  const update = (message: Record<string, unknown>) => ({ update_id: 1, message: { message_id: 9, chat: { id: 555 }, from: { id: 555, first_name: 'Ann' }, ...message } });

  it('normalises a text message', () => {
    expect(normaliseTelegramUpdate(update({ text: 'hello' }))).toEqual({
      kind: 'message',
      request: expect.objectContaining({ channel: 'telegram', externalId: '555', chatId: '555', message: 'hello', sessionId: 'telegram:555' }),
    });
  });
  it('marks non-text messages unsupported and ignores updates without a chat or from bots', () => {
    expect(normaliseTelegramUpdate(update({ sticker: {} }))).toMatchObject({ kind: 'unsupported', chatId: '555' });
    expect(normaliseTelegramUpdate({ update_id: 2, callback_query: {} })).toMatchObject({ kind: 'ignored' });
    expect(normaliseTelegramUpdate(update({ text: 'x', from: { id: 1, is_bot: true } }))).toMatchObject({ kind: 'ignored' });
  });
});

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

describe('failures', () => {
  it('maps timeouts to 504 and other failures to 502, with JSON bodies', () => {
    expect(describeFailure('Request timed out.')).toMatchObject({ statusCode: 504, body: { error: { code: 'upstream_timeout' } } });
    expect(describeFailure('500 The server had an error')).toMatchObject({ statusCode: 502, body: { error: { code: 'upstream_failed' } } });
    expect(describeFailure(undefined).statusCode).toBe(502);
  });
});
