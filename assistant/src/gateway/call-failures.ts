// What a model call that went wrong tells failure awareness (assistant.failures), in plain words: a provider that
// refused its key, failed, rate-limited or did not answer in time; a prompt the model's window cannot take; a spending
// cap's stop. A caller giving up (aborted) or a cut prompt that was answered is not a failure here.
import type { Queryable } from '../storage/db';
import { recordFailure, type FailureSource } from '../failures/failures';
import { UPSTREAM_ENV } from './config';
import { scrubSecrets, type ModelCallRecord } from './ledger';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UPSTREAM_NAMES: Record<string, string> = {
  llm: 'chat model',
  judge: 'judge model',
  embeddings: 'embeddings',
  transcription: 'transcription',
};

export interface CallFailure {
  source: FailureSource;
  /** What kind of failure, for the streak: two 500s are one streak, a 500 then a 401 two. */
  kind: string;
  message: string;
}

/** The failure a finished call amounts to, or undefined when it is none. */
export function describeCallFailure(row: ModelCallRecord): CallFailure | undefined {
  const error = row.error ?? 'no error message';
  const provider = `the ${UPSTREAM_NAMES[row.upstream] ?? row.upstream} provider (${row.provider}, model ${row.model})`;
  if (row.outcome === 'over_budget') return { source: 'budget', kind: 'over_budget', message: error };
  if (row.outcome === 'timeout')
    return { source: 'provider', kind: 'timeout', message: `${provider} did not answer in time: ${error}` };
  if (row.outcome === 'refused')
    return { source: 'provider', kind: 'refused', message: `the prompt was not sent to ${provider}: ${error}` };
  if (row.outcome !== 'failed') return undefined;
  const status = row.status;
  if (status === 401 || status === 403) {
    const key = UPSTREAM_ENV[row.upstream as keyof typeof UPSTREAM_ENV]?.[1];
    const check = key ? ` Check ${key}.` : '';
    return {
      source: 'provider',
      kind: 'key',
      message: `${provider} refused its API key (HTTP ${status}): ${error}.${check}`,
    };
  }
  if (status === 429)
    return {
      source: 'provider',
      kind: 'rate',
      message: `${provider} is rate-limiting the assistant (HTTP 429): ${error}`,
    };
  if (status >= 500 || status === 0)
    return {
      source: 'provider',
      kind: 'outage',
      message: `${provider} failed (${status ? `HTTP ${status}` : 'unreachable'}), an outage there?: ${error}`,
    };
  return {
    source: 'provider',
    kind: `http-${status}`,
    message: `${provider} refused the request (HTTP ${status}): ${error}`,
  };
}

/** Records the call's failure, if it is one, secrets scrubbed; a streak of the same kind is one row. */
export async function recordCallFailure(db: Queryable, row: ModelCallRecord, secrets: string[]): Promise<void> {
  const failure = describeCallFailure(row);
  if (!failure) return;
  const named = row.caller.user && UUID.test(row.caller.user) ? row.caller.user : null;
  const known = named ? await db.query('SELECT 1 FROM assistant.users WHERE id = $1', [named]) : undefined;
  await recordFailure(db, {
    source: failure.source,
    userId: known?.rowCount ? named : null,
    workflow: `${row.caller.job} → ${row.upstream}`,
    message: scrubSecrets(failure.message, secrets),
    fingerprint: `${row.upstream}|${row.provider}|${failure.kind}`,
    data: { upstream: row.upstream, model: row.model, status: row.status, job: row.caller.job, ref: row.caller.ref },
  });
}
