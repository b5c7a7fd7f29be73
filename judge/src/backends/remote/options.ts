// The remote System One backend's options and how the config file and environment give them, naming the exact
// field on every error. JUDGE_REMOTE_BASE_URL and JUDGE_REMOTE_API_KEY replace the file's values.
import { integerSetting, stringSetting, type Env, type Fail, type Raw } from '../../shared/settings';

export interface RemoteBackendOptions {
  /** The provider's API root, e.g. "https://api.typesafe.ai" (we call {baseUrl}/v1/systemone and /v1/models). */
  baseUrl: string;
  /** The provider key, from env or the config file; never logged. */
  apiKey: string;
  /** Per-request timeout in ms, the whole answer included (default 60 000). */
  timeoutMs?: number;
}

/** `file` is the config's backend block (`{kind: "remote", ...}`), each value replaced by its environment variable. */
export function parseRemoteBackendOptions(file: Raw, env: Env, fail: Fail): RemoteBackendOptions {
  return {
    baseUrl: stringSetting(env.JUDGE_REMOTE_BASE_URL ?? file.baseUrl, 'backend.baseUrl', true, fail)!,
    apiKey: stringSetting(
      env.JUDGE_REMOTE_API_KEY ?? file.apiKey,
      'backend.apiKey (or JUDGE_REMOTE_API_KEY)',
      true,
      fail,
    )!,
    timeoutMs: integerSetting(file.timeoutMs, 'backend.timeoutMs', 60_000, 1, fail),
  };
}
