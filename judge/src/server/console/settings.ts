// The operator's console's settings (config `console`, env JUDGE_CONSOLE_PASSWORD):
//   password       the operator's sign-in password (JUDGE_CONSOLE_PASSWORD wins over the file); none: the console
//                  is off and /console says how to switch it on. At least 12 characters.
//   sessionHours   how long a sign-in lasts (default 12)
// The console needs a key store (keys.file or keys.databaseUrl): that is where its keys and usage live.

export interface ConsoleSettings {
  password?: string;
  sessionHours: number;
}

export const DEFAULT_CONSOLE: ConsoleSettings = { sessionHours: 12 };
export const MIN_PASSWORD_LENGTH = 12;

type Fail = (field: string, reason: string) => Error;
type Env = Record<string, string | undefined>;

const KNOWN = ['password', 'sessionHours'];

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
  return { ...(chosen === undefined ? {} : { password: chosen }), sessionHours: hours };
}
