// The operator's console's settings (config `console`, env JUDGE_CONSOLE_PASSWORD):
//   password       the operator's sign-in password (JUDGE_CONSOLE_PASSWORD wins over the file); none: the console
//                  is off and /console says how to switch it on. At least 12 characters.
//   sessionHours   how long a sign-in lasts (default 12)
//   assistant      the web chat's way to the assistant (env JUDGE_CONSOLE_ASSISTANT_URL / _KEY win): {url, key,
//                  keyHeader?}: the webhook base (http://127.0.0.1:5678/webhook), the assistant's API key and its
//                  header (X-API-Key). None: /console/chat says how to switch it on. The key never reaches a browser.
//                  voice (JUDGE_CONSOLE_ASSISTANT_VOICE on/off wins): the assistant transcribes voice notes, so the
//                  page offers a microphone (off unless said).
// The console needs a key store (keys.file or keys.databaseUrl): that is where its keys and usage live.

export interface ConsoleSettings {
  password?: string;
  sessionHours: number;
  assistant?: AssistantEntry;
}

/** Where the web chat reaches the assistant: its webhook base URL and API key. */
export interface AssistantEntry {
  url: string;
  key: string;
  keyHeader: string;
  /** The assistant transcribes voice (its Assistant Transcription credential is set): the page offers a microphone. */
  voice?: true;
}

export const DEFAULT_CONSOLE: ConsoleSettings = { sessionHours: 12 };
export const MIN_PASSWORD_LENGTH = 12;

type Fail = (field: string, reason: string) => Error;
type Env = Record<string, string | undefined>;

const KNOWN = ['password', 'sessionHours', 'assistant'];
const ASSISTANT_KNOWN = ['url', 'key', 'keyHeader', 'voice'];

function password(value: unknown, field: string, fail: Fail): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw fail(field, 'must be a string');
  if (value.length < MIN_PASSWORD_LENGTH) throw fail(field, `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return value;
}

/** Reads `console` from the config file and JUDGE_CONSOLE_PASSWORD; every bad value names its field. */
export function readConsoleSettings(raw: unknown, env: Env, fail: Fail): ConsoleSettings {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw fail('console', 'must be an object');
  }
  const file = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(file)) {
    if (!KNOWN.includes(key)) throw fail(`console.${key}`, `is not a console setting (${KNOWN.join(', ')})`);
  }
  const fromEnv = password(env.JUDGE_CONSOLE_PASSWORD, 'JUDGE_CONSOLE_PASSWORD', fail);
  const hours = file.sessionHours ?? DEFAULT_CONSOLE.sessionHours;
  if (typeof hours !== 'number' || !(hours > 0) || hours > 24 * 30) {
    throw fail('console.sessionHours', `must be a number of hours > 0 and ≤ 720, got ${JSON.stringify(hours)}`);
  }
  const chosen = fromEnv ?? password(file.password, 'console.password', fail);
  const assistant = assistantEntry(file.assistant, env, fail);
  return {
    ...(chosen === undefined ? {} : { password: chosen }),
    sessionHours: hours,
    ...(assistant ? { assistant } : {}),
  };
}

function assistantEntry(raw: unknown, env: Env, fail: Fail): AssistantEntry | undefined {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw fail('console.assistant', 'must be an object {url, key, keyHeader?}');
  }
  const file = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(file)) {
    if (!ASSISTANT_KNOWN.includes(key)) {
      throw fail(`console.assistant.${key}`, `is not a setting (${ASSISTANT_KNOWN.join(', ')})`);
    }
  }
  const url = env.JUDGE_CONSOLE_ASSISTANT_URL || file.url;
  const key = env.JUDGE_CONSOLE_ASSISTANT_KEY || file.key;
  if (url === undefined && key === undefined) return undefined;
  const urlField = env.JUDGE_CONSOLE_ASSISTANT_URL ? 'JUDGE_CONSOLE_ASSISTANT_URL' : 'console.assistant.url';
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) {
    throw fail(urlField, "must be the assistant's webhook base URL, like http://127.0.0.1:5678/webhook");
  }
  const keyField = env.JUDGE_CONSOLE_ASSISTANT_KEY ? 'JUDGE_CONSOLE_ASSISTANT_KEY' : 'console.assistant.key';
  if (typeof key !== 'string' || key.trim() === '') throw fail(keyField, "must be the assistant's API key");
  const header = file.keyHeader ?? 'X-API-Key';
  if (typeof header !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(header)) {
    throw fail('console.assistant.keyHeader', 'must be an HTTP header name');
  }
  const voice = voiceSetting(env.JUDGE_CONSOLE_ASSISTANT_VOICE, file.voice, fail);
  return { url: url.replace(/\/+$/, ''), key: key.trim(), keyHeader: header, ...(voice ? { voice } : {}) };
}

/** JUDGE_CONSOLE_ASSISTANT_VOICE (on/off) wins over console.assistant.voice (true/false); off unless said. */
function voiceSetting(fromEnv: string | undefined, fromFile: unknown, fail: Fail): true | undefined {
  if (fromEnv) {
    if (!['on', 'off'].includes(fromEnv)) throw fail('JUDGE_CONSOLE_ASSISTANT_VOICE', 'must be on or off');
    return fromEnv === 'on' ? true : undefined;
  }
  if (fromFile === undefined) return undefined;
  if (typeof fromFile !== 'boolean') throw fail('console.assistant.voice', 'must be true or false');
  return fromFile ? true : undefined;
}
