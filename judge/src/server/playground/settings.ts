// The playground's settings (config `playground`, env JUDGE_PLAYGROUND_OPEN):
//   enabled            serve GET /playground at all (default true)
//   open               judge from the page without an API key, through POST /playground/judge. Default: on only
//                      when the server listens on a loopback address; JUDGE_PLAYGROUND_OPEN=true|false overrides.
//   requestsPerMinute  the open mode's own rate limit, all callers together (default 30)
//   tokensPerHour      the open mode's own input-token quota, all callers together (default 200 000)
// With a key the page calls POST /v1/systemone like any client; these limits do not apply to it.

export interface PlaygroundSettings {
  enabled: boolean;
  /** undefined: decided when the server listens (open on loopback only). */
  open?: boolean;
  requestsPerMinute: number;
  tokensPerHour: number;
}

export const DEFAULT_PLAYGROUND: PlaygroundSettings = { enabled: true, requestsPerMinute: 30, tokensPerHour: 200_000 };

type Fail = (field: string, reason: string) => Error;
type Env = Record<string, string | undefined>;

const KNOWN = ['enabled', 'open', 'requestsPerMinute', 'tokensPerHour'];

function flag(value: unknown, field: string, fail: Fail): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw fail(field, `must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function envFlag(value: string | undefined, field: string, fail: Fail): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw fail(field, `must be true or false, got ${JSON.stringify(value)}`);
}

function count(value: unknown, field: string, fallback: number, fail: Fail): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw fail(field, `must be an integer ≥ 1, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Reads `playground` from the config file and JUDGE_PLAYGROUND_OPEN; every bad value names its field. */
export function readPlaygroundSettings(raw: unknown, env: Env, fail: Fail): PlaygroundSettings {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw fail('playground', 'must be an object');
  }
  const file = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(file)) {
    if (!KNOWN.includes(key)) throw fail(`playground.${key}`, `is not a playground setting (${KNOWN.join(', ')})`);
  }
  const fromFile = flag(file.open, 'playground.open', fail);
  const open = envFlag(env.JUDGE_PLAYGROUND_OPEN, 'JUDGE_PLAYGROUND_OPEN', fail) ?? fromFile;
  return {
    enabled: flag(file.enabled, 'playground.enabled', fail) ?? true,
    ...(open === undefined ? {} : { open }),
    requestsPerMinute: count(
      file.requestsPerMinute,
      'playground.requestsPerMinute',
      DEFAULT_PLAYGROUND.requestsPerMinute,
      fail,
    ),
    tokensPerHour: count(file.tokensPerHour, 'playground.tokensPerHour', DEFAULT_PLAYGROUND.tokensPerHour, fail),
  };
}
