// Optional embeddings for memory recall, from any OpenAI-compatible POST <base URL>/embeddings endpoint
// (OpenAI, Mistral, Ollama's /v1, …). The key travels only in the Authorization header; it is never logged,
// stored or put into an error message.
import { AssistantInputError } from '../errors';
import { withCaller } from '../gateway/caller';

export interface EmbeddingSettings {
  /** The API root including the version, e.g. https://api.openai.com/v1 (requests go to <baseUrl>/embeddings). */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Asks the endpoint for this many dimensions (models that support it); 0 or undefined: the model's own. */
  dimensions?: number;
  timeoutMs?: number;
}

/** Turns texts into unit-length vectors, one per text, in order. */
export interface Embedder {
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
}

/** The endpoint failed or answered something unusable; the message names the cause, never the key. */
export class EmbeddingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

const MAX_DIMENSIONS = 16_000;

/** Checks the settings (errors name the field) and returns an embedder that calls the endpoint. */
export function openAiEmbedder(settings: EmbeddingSettings): Embedder {
  let base: URL;
  try {
    base = new URL(String(settings.baseUrl ?? '').replace(/\/+$/, ''));
  } catch {
    throw new AssistantInputError('baseUrl', 'must be an http(s) URL such as https://api.openai.com/v1');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new AssistantInputError('baseUrl', 'must be an http(s) URL');
  const model = typeof settings.model === 'string' ? settings.model.trim() : '';
  if (!model) throw new AssistantInputError('model', 'the embedding model name is required');
  const dimensions = settings.dimensions ?? 0;
  if (!Number.isInteger(dimensions) || dimensions < 0 || dimensions > MAX_DIMENSIONS) {
    throw new AssistantInputError('dimensions', `must be an integer from 0 (the model's own) to ${MAX_DIMENSIONS}`);
  }
  const timeoutMs = settings.timeoutMs ?? 15_000;
  const url = `${base.toString().replace(/\/+$/, '')}/embeddings`;

  return {
    model,
    async embed(texts: string[]): Promise<number[][]> {
      if (texts.length === 0) return [];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            // The gateway reads who calls from the model id (docs/MODELS.md); it sends the bare id on.
            model: withCaller(model, { job: 'embeddings' }),
            input: texts,
            encoding_format: 'float',
            ...(dimensions > 0 ? { dimensions } : {}),
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const reason =
          (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
        throw new EmbeddingError(`embeddings endpoint ${base.host} unreachable: ${reason}`);
      }
      const text = await response.text();
      if (!response.ok)
        throw new EmbeddingError(`embeddings endpoint answered ${response.status}: ${providerMessage(text)}`);
      return parseEmbeddings(text, texts.length);
    },
  };
}

/** The provider's own error message (OpenAI envelope) or the start of the body, for the error text. */
function providerMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return body.slice(0, 200) || '(empty body)';
}

function parseEmbeddings(body: string, expected: number): number[][] {
  let data: unknown;
  try {
    data = (JSON.parse(body) as { data?: unknown }).data;
  } catch {
    throw new EmbeddingError('embeddings endpoint answered with a body that is not JSON');
  }
  if (!Array.isArray(data) || data.length !== expected) {
    throw new EmbeddingError(
      `embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${expected} inputs`,
    );
  }
  const vectors: number[][] = new Array(expected);
  for (const [position, item] of data.entries()) {
    const index = typeof item?.index === 'number' ? item.index : position;
    const vector = item?.embedding;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((v) => typeof v === 'number' && Number.isFinite(v))
    ) {
      throw new EmbeddingError(`embeddings endpoint returned an invalid vector at index ${index}`);
    }
    vectors[index] = unitVector(vector);
  }
  if (vectors.some((v) => v === undefined)) throw new EmbeddingError('embeddings endpoint returned duplicate indexes');
  const size = vectors[0].length;
  if (vectors.some((v) => v.length !== size))
    throw new EmbeddingError('embeddings endpoint returned vectors of different lengths');
  return vectors;
}

/** Scaled to length 1, so that cosine similarity is a plain dot product. */
export function unitVector(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  if (norm === 0) throw new EmbeddingError('embeddings endpoint returned an all-zero vector');
  return vector.map((v) => v / norm);
}
