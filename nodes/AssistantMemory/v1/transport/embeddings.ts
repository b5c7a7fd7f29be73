// The optional embeddings endpoint (base URL, key, model, dimensions); the key stays in n8n's credential store.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { openAiEmbedder, type Embedder } from 'assistant-core';

export const EMBEDDINGS_CREDENTIAL = 'assistantEmbeddingsApi';

/** The embedder of the node's Assistant Embeddings API credential; undefined when the node has none. */
export async function embedderFor(context: IExecuteFunctions): Promise<Embedder | undefined> {
  if (!context.getNode().credentials?.[EMBEDDINGS_CREDENTIAL]) return undefined;
  const credential = await context.getCredentials(EMBEDDINGS_CREDENTIAL);
  try {
    return openAiEmbedder({
      baseUrl: String(credential.baseUrl ?? ''),
      apiKey: String(credential.apiKey ?? ''),
      model: String(credential.model ?? ''),
      dimensions: Number(credential.dimensions ?? 0),
    });
  } catch (error) {
    const message = `Assistant Embeddings API credential: ${(error as Error).message}`;
    throw new NodeOperationError(context.getNode(), message);
  }
}
