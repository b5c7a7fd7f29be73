// Load Context's optional Assistant Embeddings API credential: with it (and a base URL: an install with embeddings
// off leaves it empty), the automatic recall before each turn also ranks memories by meaning. The key stays in n8n's
// credential store.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { openAiEmbedder, type Embedder } from 'assistant-core';

export const EMBEDDINGS_CREDENTIAL = 'assistantEmbeddingsApi';

/** The credential's embedder; undefined without the credential or with embeddings off (no base URL). */
export async function contextEmbedder(context: IExecuteFunctions): Promise<Embedder | undefined> {
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
