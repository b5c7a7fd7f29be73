// The judge (docs/JUDGE.md): its GET /v1/models, with the key the product's n8n uses (SYSTEMONE_JUDGE_KEY), and the
// scoring method each model reports (`scoring: {method, calibrated}`: exact_label_ids, top_logprobs or samples).
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

export interface JudgeModel {
  name: string;
  method: string;
  calibrated: boolean | null;
}

export interface JudgeCheck {
  reachable: boolean;
  models: JudgeModel[];
  problem: string | null;
}

interface ModelList {
  models?: Array<{ name?: string; scoring?: { method?: string; calibrated?: boolean } }>;
}

export async function checkJudge(settings: DoctorSettings, timeoutMs: number): Promise<JudgeCheck> {
  try {
    const { body } = await probe<ModelList>({
      url: `${settings.judge.url}/v1/models`,
      who: 'the judge',
      key: settings.judge.key,
      timeoutMs,
    });
    const models = (body.models ?? []).map((m) => ({
      name: m.name ?? '(unnamed)',
      method: m.scoring?.method ?? 'unknown',
      calibrated: m.scoring?.calibrated ?? null,
    }));
    return { reachable: true, models, problem: models.length === 0 ? 'the judge lists no model' : null };
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    return { reachable: false, models: [], problem: error.message };
  }
}
