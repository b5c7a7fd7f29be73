// Where the Judge node sends its System One requests: our judge server by default, or any System One provider.
import type {
  ICredentialDataDecryptedObject,
  ICredentialTestRequest,
  ICredentialType,
  IHttpRequestOptions,
  INodeProperties,
} from 'n8n-workflow';

export class SystemOneApi implements ICredentialType {
  name = 'systemOneApi';

  displayName = 'System One API';

  icon = 'file:../nodes/Judge/judge.svg' as const;

  documentationUrl = 'https://github.com/typesafe-ai/systemone';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'http://127.0.0.1:8080',
      placeholder: 'http://127.0.0.1:8080',
      description: 'The server root; requests go to <Base URL>/v1/systemone',
      required: true,
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
    },
  ];

  // A function rather than a header expression: it sets the same Bearer header without an expression
  // evaluation per request (each one costs the expression engine an isolate).
  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    requestOptions: IHttpRequestOptions,
  ): Promise<IHttpRequestOptions> {
    return {
      ...requestOptions,
      headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
    };
  }

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
      url: '/v1/models',
    },
  };
}
