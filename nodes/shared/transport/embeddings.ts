// The optional Assistant Embeddings API credential (base URL, key, model, dimensions), the key kept in n8n's
// credential store. A node without it, or with an empty base URL (what an install with embeddings off writes),
// works by words only.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { openAiEmbedder, type Embedder } from 'assistant-core';

export const EMBEDDINGS_CREDENTIAL = 'assistantEmbeddingsApi';

/** The credential's embedder; undefined without the credential or with embeddings off (no base URL). */
export async function embedderFor(context: IExecuteFunctions): Promise<Embedder | undefined> {
  if (!context.getNode().credentials?.[EMBEDDINGS_CREDENTIAL]) return undefined;
  const credential = await context.getCredentials(EMBEDDINGS_CREDENTIAL);
  if (String(credential.baseUrl ?? '').trim() === '') return undefined;
  try {
    return openAiEmbedder({
      baseUrl: String(credential.baseUrl),
      apiKey: String(credential.apiKey ?? ''),
      model: String(credential.model ?? ''),
      dimensions: Number(credential.dimensions ?? 0),
    });
  } catch (error) {
    const message = `Assistant Embeddings API credential: ${(error as Error).message}`;
    throw new NodeOperationError(context.getNode(), message);
  }
}
