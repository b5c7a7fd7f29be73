// Settings read from the environment of the process that runs them (n8n, the browser service): every bad value is
// an AssistantInputError naming the variable; unset (or blank) means the caller's default.
import { AssistantInputError } from './errors';

type Env = NodeJS.ProcessEnv;

/** The variable's value, trimmed; undefined when unset or blank. */
export const envValue = (env: Env, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/** A whole number from `name`, `fallback` when unset; outside min..max is an error naming the variable. */
export function integerSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = envValue(env, name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new AssistantInputError(name, `"${raw}" must be a whole number from ${min} to ${max}`);
  }
  return parsed;
}
