// Embeddings, when configured (ASSISTANT_EMBEDDINGS_BASE_URL): one tiny real call through the gateway.
import { withCaller } from '../../assistant/src/gateway/caller';
import { DOCTOR_CALLER } from './chat';
import { probe, ProbeFailure } from './http';
import type { DoctorSettings } from './settings';

export interface OptionalCheck {
  configured: boolean;
  works: boolean;
  /** What came back (e.g. "1536 dimensions"), or what went wrong. */
  detail: string;
  /** Embeddings that work: the dimensions the model gives. */
  dimensions?: number;
}

export async function checkEmbeddings(settings: DoctorSettings, timeoutMs: number): Promise<OptionalCheck> {
  if (!settings.embeddingsModel) return { configured: false, works: false, detail: 'not configured' };
  try {
    const { body } = await probe<{ data?: Array<{ embedding?: unknown }> }>({
      url: `${settings.gatewayUrl}/embeddings/v1/embeddings`,
      who: 'the model gateway',
      key: settings.gatewayKey,
      json: { model: withCaller(settings.embeddingsModel, DOCTOR_CALLER), input: 'doctor check' },
      timeoutMs,
    });
    const vector = body.data?.[0]?.embedding;
    if (!Array.isArray(vector) || vector.length === 0)
      return { configured: true, works: false, detail: 'the answer carries no embedding' };
    return {
      configured: true,
      works: true,
      detail: `${settings.embeddingsModel}, ${vector.length} dimensions`,
      dimensions: vector.length,
    };
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    return { configured: true, works: false, detail: error.message };
  }
}
