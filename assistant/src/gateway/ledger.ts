// The ledger of model calls (assistant.model_calls): one row per call through the gateway, secrets scrubbed from its
// error. The spending caps, the failure records and the benchmarks read it.
import type { Queryable } from '../storage/db';
import type { CallCharge } from './budget';
import type { ModelCaller } from './caller';
import type { PromptMeasure } from './measure';

export type CallOutcome = 'ok' | 'refused' | 'cut' | 'failed' | 'timeout' | 'aborted' | 'over_budget';

export interface ModelCallRecord {
  upstream: string;
  route: string;
  caller: ModelCaller;
  provider: string;
  model: string;
  reported?: { prompt: number | null; output: number | null; cached: number | null };
  measured?: PromptMeasure;
  windowTokens?: number | null;
  latencyMs: number;
  status: number;
  outcome: CallOutcome;
  error?: string;
  /** The reservation to settle (the server prices and settles it before writing the row). */
  charge?: CallCharge;
  costMicros?: number | null;
  pricedBy?: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_ERROR = 2_000;

/** `text` with every secret replaced, and anything that looks like a bearer token or API key. */
export function scrubSecrets(text: string, secrets: string[]): string {
  let scrubbed = text;
  for (const secret of secrets) if (secret.length >= 6) scrubbed = scrubbed.split(secret).join('[secret]');
  return scrubbed
    .replace(/Bearer\s+[A-Za-z0-9._~+/-]{8,}=*/g, 'Bearer [secret]')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, '[secret]')
    .slice(0, MAX_ERROR);
}

export async function recordModelCall(db: Queryable, call: ModelCallRecord, secrets: string[]): Promise<void> {
  const user = call.caller.user && UUID.test(call.caller.user) ? call.caller.user : null;
  await db.query(
    `INSERT INTO assistant.model_calls (upstream, route, job, user_id, ref, provider, model, prompt_tokens,
       output_tokens, cached_tokens, measured_prompt_tokens, measured_by, window_tokens, latency_ms, status, outcome,
       error, cost_micros, priced_by)
     VALUES ($1, $2, $3, (SELECT id FROM assistant.users WHERE id = $4::uuid), $5, $6, $7, $8, $9, $10, $11, $12,
       $13, $14, $15, $16, $17, $18, $19)`,
    [
      call.upstream,
      call.route,
      call.caller.job,
      user,
      call.caller.ref ?? null,
      call.provider,
      call.model,
      call.reported?.prompt ?? null,
      call.reported?.output ?? null,
      call.reported?.cached ?? null,
      call.measured?.tokens ?? null,
      call.measured?.by ?? null,
      call.windowTokens ?? null,
      Math.round(call.latencyMs),
      call.status,
      call.outcome,
      call.error === undefined ? null : scrubSecrets(call.error, secrets),
      call.costMicros ?? null,
      call.pricedBy ?? null,
    ],
  );
}

export interface ModelCallRow {
  id: string;
  at: Date;
  upstream: string;
  route: string;
  job: string;
  user_id: string | null;
  ref: string | null;
  provider: string;
  model: string;
  prompt_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  measured_prompt_tokens: number | null;
  measured_by: string | null;
  window_tokens: number | null;
  latency_ms: number;
  status: number;
  outcome: CallOutcome;
  error: string | null;
  cost_micros: string | null;
  priced_by: string | null;
}

/** Calls since `since`, oldest first (for reports and tests). */
export async function listModelCalls(db: Queryable, since: Date): Promise<ModelCallRow[]> {
  const result = await db.query<ModelCallRow>('SELECT * FROM assistant.model_calls WHERE at >= $1 ORDER BY id', [
    since,
  ]);
  return result.rows;
}
