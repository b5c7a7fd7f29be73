// One model call as the gateway handles it: who asked, where it goes, what was measured, and its ledger row once it
// ends (exactly once, whatever way it ends).
import type { CallCharge } from './budget';
import type { ModelCaller } from './caller';
import type { CallOutcome, ModelCallRecord } from './ledger';
import type { PromptMeasure } from './measure';
import type { Provider } from './provider';
import type { ReportedUsage } from './usage';

/** Writes the call's ledger row; settles when it is written (or its failure logged). */
export type RecordCall = (record: ModelCallRecord) => Promise<void>;

export class ModelCall {
  measured?: PromptMeasure;
  windowTokens: number | null = null;
  /** The model as the caller named it, without the caller suffix. */
  model = '';
  caller: ModelCaller = { job: 'unknown' };
  /** Its reservation against the spending caps, settled when it ends. */
  charge?: CallCharge;
  private ended = false;

  constructor(
    readonly upstream: string,
    readonly route: string,
    readonly provider: Provider | null,
    private readonly started: number,
    private readonly now: () => number,
    private readonly record: RecordCall,
  ) {}

  /** Records the call once; a failure is recorded before the caller is answered, so the caller can read it. */
  end(outcome: CallOutcome, status: number, reported?: ReportedUsage, error?: string): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.ended = true;
    return this.record({
      upstream: this.upstream,
      route: this.route,
      caller: this.caller,
      provider: this.provider ? new URL(this.provider.baseUrl).host : '-',
      model: this.model || '-',
      reported,
      measured: this.measured,
      charge: this.charge,
      windowTokens: this.windowTokens,
      latencyMs: this.now() - this.started,
      status,
      outcome,
      error,
    });
  }

  get isEnded(): boolean {
    return this.ended;
  }
}

/** Whether the provider saw fewer prompt tokens than were sent (it cut the prompt). */
export function wasCut(measured: PromptMeasure | undefined, reported: ReportedUsage | null): boolean {
  if (!measured || !reported || reported.prompt === null) return false;
  return reported.prompt < measured.lower;
}

export function cutMessage(call: ModelCall, reported: ReportedUsage): string {
  return (
    `the provider read ${reported.prompt} prompt tokens of about ${call.measured!.tokens} sent to ${call.model}: ` +
    'it cut the prompt (its context window is smaller than it reports, e.g. an Ollama model without the gateway’s ' +
    'derived window); set ASSISTANT_MODEL_WINDOWS to the window the server really runs with'
  );
}
