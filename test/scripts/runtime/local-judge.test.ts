// The local stack's judge: the web chat's way to the assistant (scripts/runtime/local-judge.ts webChatEntry).
import { describe, expect, it } from 'vitest';
import { webChatEntry } from '../../../scripts/runtime/local-judge';

const settings = { N8N_PORT: '5678', ASSISTANT_API_KEY: 'assistant-key' };

describe('webChatEntry', () => {
  it("points the web chat at this machine's webhook with the assistant's key, voice off without transcription", () => {
    expect(webChatEntry(settings, {})).toEqual({
      JUDGE_CONSOLE_ASSISTANT_URL: 'http://127.0.0.1:5678/webhook',
      JUDGE_CONSOLE_ASSISTANT_KEY: 'assistant-key',
      JUDGE_CONSOLE_ASSISTANT_VOICE: 'off',
    });
  });

  it('turns the microphone on when a transcription provider is set', () => {
    const entry = webChatEntry({ ...settings, ASSISTANT_TRANSCRIPTION_BASE_URL: 'http://127.0.0.1:9000/v1' }, {});
    expect(entry.JUDGE_CONSOLE_ASSISTANT_VOICE).toBe('on');
  });

  it("keeps the judge's own settings", () => {
    const own = {
      JUDGE_CONSOLE_ASSISTANT_URL: 'http://elsewhere/webhook',
      JUDGE_CONSOLE_ASSISTANT_KEY: 'other',
      JUDGE_CONSOLE_ASSISTANT_VOICE: 'off',
    };
    expect(webChatEntry({ ...settings, ASSISTANT_TRANSCRIPTION_BASE_URL: 'http://x/v1' }, own)).toEqual({});
  });
});
