// Optional, for the Assistant Memory node: an OpenAI-compatible embeddings endpoint (OpenAI, Mistral, Ollama's
// /v1, …). With it, memories are embedded when stored and recall also ranks by cosine similarity.
import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

export class AssistantEmbeddingsApi implements ICredentialType {
  name = 'assistantEmbeddingsApi';

  displayName = 'Assistant Embeddings API';

  icon = 'file:../nodes/AssistantMemory/assistantMemory.svg' as const;

  documentationUrl = 'https://platform.openai.com/docs/api-reference/embeddings';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'https://api.openai.com/v1',
      description: 'The API root including the version; requests go to <Base URL>/embeddings',
      required: true,
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description: 'Sent as a Bearer token; leave empty for a local server without keys (e.g. Ollama)',
    },
    {
      displayName: 'Model',
      name: 'model',
      type: 'string',
      default: 'text-embedding-3-small',
      required: true,
    },
    {
      displayName: 'Dimensions',
      name: 'dimensions',
      type: 'number',
      default: 0,
      description:
        "Ask for vectors of this size (models that support it); 0 uses the model's own. " +
        'Keep it equal to the dimension the pgvector index was created with.',
    },
  ];

  // Used by n8n's credential test; the Memory node sends the same header itself.
  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
  };

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
      url: '/embeddings',
      method: 'POST',
      body: { model: '={{ $credentials.model }}', input: 'test' },
    },
  };
}
